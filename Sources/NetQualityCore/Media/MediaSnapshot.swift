/// One stream's media experience at a tick: the window since the previous tick and the totals.
public struct StreamMediaSnapshot: Sendable, Equatable {
  public var key: StreamKey
  public var direction: StreamDirection
  /// The peer's name (its address, or its configured group).
  public var peer: String
  public var isVideo: Bool
  public var window: MediaCounts
  public var total: MediaCounts
  /// Frames received in the window over its length (video; nil for audio).
  public var framesPerSecond: Double?

  public init(
    key: StreamKey, direction: StreamDirection, peer: String, isVideo: Bool,
    window: MediaCounts, total: MediaCounts, framesPerSecond: Double?
  ) {
    self.key = key
    self.direction = direction
    self.peer = peer
    self.isVideo = isVideo
    self.window = window
    self.total = total
    self.framesPerSecond = framesPerSecond
  }
}

/// One direction of a peer's media experience: its streams' media summed, and the RTCP
/// feedback about that direction's media (rx: what this side asked of the peer; tx: what the
/// peer asked of us).
public struct DirectionMedia: Sendable, Equatable {
  public var window = MediaCounts()
  public var total = MediaCounts()
  public var feedbackWindow = FeedbackCounts()
  public var feedbackTotal = FeedbackCounts()
  /// Video streams in the direction this tick.
  public var videoStreams = 0
  public var audioStreams = 0
  /// Frames received in the window over its length, summed over the video streams (nil
  /// without video).
  public var framesPerSecond: Double?

  public init() {}

  public var isEmpty: Bool {
    videoStreams == 0 && audioStreams == 0 && feedbackTotal.isEmpty
  }
}

/// A peer's media experience at a tick, beside (never inside) its network levels.
public struct PeerMedia: Sendable, Equatable {
  public var rx = DirectionMedia()
  public var tx = DirectionMedia()

  public init() {}

  public var hasVideo: Bool { rx.videoStreams > 0 || tx.videoStreams > 0 }
}

/// The fleet's media since the engine started, per direction: every stream's and address
/// pair's windows added up (so the totals never go back when peers are forgotten).
public struct MediaFleetCounters: Sendable, Equatable {
  public var rx = MediaCounts()
  public var tx = MediaCounts()
  public var rxFeedback = FeedbackCounts()
  public var txFeedback = FeedbackCounts()

  public init() {}
}

/// What a tick publishes of media experience (`Snapshot.media`).
public struct MediaTickSnapshot: Sendable, Equatable {
  /// The streams with media tracking, in the harvest's order (the streams API finds them by
  /// key): a sort by peer name cost 8 % of a tick under churn (issue 37).
  public var streams = StreamMediaList()
  public var fleet = MediaFleetCounters()

  public init(streams: StreamMediaList = [], fleet: MediaFleetCounters = MediaFleetCounters()) {
    self.streams = streams
    self.fleet = fleet
  }
}
