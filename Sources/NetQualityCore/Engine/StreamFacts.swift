/// What scoring a peer reads of one of its streams besides the stream's window: kept while the
/// tick's harvest is drained into windows (`Scorer.tick`), 32 bytes a stream where the harvest's
/// record is 160.
struct StreamFacts {
  var lastArrival: CaptureTime
  var resumedAt: CaptureTime
  /// The stream's RTCP details and its peer's address facts in the harvest, or -1.
  var feedbackIndex: Int32
  var peerFactsIndex: Int32
  /// The stream's index in the analyzer.
  var index: Int32
  /// The capture interface the stream was first seen on.
  var interface: UInt8
  var isVideo: Bool

  init(_ stream: StreamHarvest.Stream) {
    lastArrival = stream.lastArrival
    resumedAt = stream.resumedAt
    feedbackIndex = stream.feedbackIndex
    peerFactsIndex = stream.peerFactsIndex
    index = stream.index
    interface = stream.interface
    isVideo = stream.isVideo
  }
}
