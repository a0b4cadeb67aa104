/// What a tick takes of one stream's media experience (`StreamHarvest.media`).
public struct MediaHarvest: Sendable {
  /// The stream's index in the analyzer (as `StreamHarvest.Stream.index`).
  public var index: Int32
  public var firstArrival: CaptureTime
  public var key: StreamKey
  public var direction: StreamDirection
  public var isVideo: Bool
  public var counts: MediaCounts

  /// The remote address the stream is exchanged with.
  public var peer: IPAddress { direction == .rx ? key.sourceAddress : key.destinationAddress }
}
