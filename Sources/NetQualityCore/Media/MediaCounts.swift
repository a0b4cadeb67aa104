/// A stream's media experience since it began, as the capture point sees it (see
/// docs/media.md for each definition and its source). Cumulative: a tick's window is the
/// difference of two (`MediaCounts.since`).
public struct MediaCounts: Sendable, Equatable {
  // Video (RTP clock of 90 kHz or SDP `m=video`).

  /// Frames of which at least one packet reached the capture point, on the stream or its
  /// RFC 4588 retransmission stream: the packets sharing an RTP timestamp (RFC 3550 section
  /// 5.1). The capture point's counterpart of webrtc-stats `framesReceived`.
  public var framesReceived: Int64 = 0
  /// Frames with a packet missing when the next frame began: a sequence gap inside the frame,
  /// before its marker, or a marker never seen (RFC 3550 section 5.1; RFC 7741 section 4.1,
  /// RFC 6184 section 5.1: the marker ends a frame).
  public var framesIncomplete: Int64 = 0
  /// Frames whose packets arrived only as retransmissions (every original lost).
  public var framesRetransmitted: Int64 = 0
  /// Key frames, where the payload format is known (SDP) and the payload is visible.
  public var keyFrames: Int64 = 0
  /// Sum of the intervals between consecutive frames' first packets, and of their squares
  /// (webrtc-stats `totalInterFrameDelay`, `totalSquaredInterFrameDelay`), seconds.
  public var totalInterFrameDelaySeconds: Double = 0
  public var totalSquaredInterFrameDelaySeconds: Double = 0
  /// Intervals in the sums above (frames received on the stream, less its first).
  public var interFrameIntervals: Int64 = 0
  /// webrtc-stats `freezeCount`, `totalFreezesDuration` (see `FreezeDetector`).
  public var freezes: Int64 = 0
  public var freezesSeconds: Double = 0
  /// webrtc-stats `pauseCount`, `totalPausesDuration`.
  public var pauses: Int64 = 0
  public var pausesSeconds: Double = 0
  /// The last resolution the payload showed (0: not visible).
  public var frameWidth: Int32 = 0
  public var frameHeight: Int32 = 0

  // Audio.

  /// Estimated concealment: the media time of the packets lost on an audio stream (each gap's
  /// sequence jump times the stream's packet time, RFC 3550 timestamps), seconds; and the
  /// gaps (webrtc-stats `concealedSamples` / clock rate and `concealmentEvents`, restricted
  /// to what loss causes: see docs/media.md).
  public var concealedSeconds: Double = 0
  public var concealmentEvents: Int64 = 0
  /// Discontinuous transmission: timestamp jumps without a sequence gap (silence with comfort
  /// noise or none, RFC 3389, RFC 7587 section 3.1.3), seconds. Not a stall.
  public var silenceSeconds: Double = 0

  public init() {}

  /// Whether the stream is video (its frames are counted).
  public var hasFrames: Bool { framesReceived > 0 }

  /// Takes `earlier` away, in place: what happened between `earlier` and this, for a tick's
  /// window (`Scorer.MediaBaseline.advance`); the resolution is this one's.
  public mutating func subtract(_ earlier: MediaCounts) {
    framesReceived -= earlier.framesReceived
    framesIncomplete -= earlier.framesIncomplete
    framesRetransmitted -= earlier.framesRetransmitted
    keyFrames -= earlier.keyFrames
    totalInterFrameDelaySeconds -= earlier.totalInterFrameDelaySeconds
    totalSquaredInterFrameDelaySeconds -= earlier.totalSquaredInterFrameDelaySeconds
    interFrameIntervals -= earlier.interFrameIntervals
    freezes -= earlier.freezes
    freezesSeconds -= earlier.freezesSeconds
    pauses -= earlier.pauses
    pausesSeconds -= earlier.pausesSeconds
    concealedSeconds -= earlier.concealedSeconds
    concealmentEvents -= earlier.concealmentEvents
    silenceSeconds -= earlier.silenceSeconds
  }

  /// Adds another stream's counts (a peer's total over its streams); the resolution is the
  /// larger.
  public mutating func add(_ other: MediaCounts) {
    framesReceived += other.framesReceived
    framesIncomplete += other.framesIncomplete
    framesRetransmitted += other.framesRetransmitted
    keyFrames += other.keyFrames
    totalInterFrameDelaySeconds += other.totalInterFrameDelaySeconds
    totalSquaredInterFrameDelaySeconds += other.totalSquaredInterFrameDelaySeconds
    interFrameIntervals += other.interFrameIntervals
    freezes += other.freezes
    freezesSeconds += other.freezesSeconds
    pauses += other.pauses
    pausesSeconds += other.pausesSeconds
    concealedSeconds += other.concealedSeconds
    concealmentEvents += other.concealmentEvents
    silenceSeconds += other.silenceSeconds
    if Int64(other.frameWidth) * Int64(other.frameHeight)
      > Int64(frameWidth) * Int64(frameHeight)
    {
      frameWidth = other.frameWidth
      frameHeight = other.frameHeight
    }
  }

  /// The mean interval between frames, seconds (nil without one).
  public var meanInterFrameSeconds: Double? {
    interFrameIntervals > 0 ? totalInterFrameDelaySeconds / Double(interFrameIntervals) : nil
  }
}
