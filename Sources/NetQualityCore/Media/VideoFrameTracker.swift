/// Video frames of one RTP stream from its headers alone, so it works under SRTP (RFC 3711
/// encrypts payloads, not headers): a frame is the packets sharing an RTP timestamp (RFC 3550
/// section 5.1: "several consecutive RTP packets will have equal timestamps if they are
/// (logically) generated at once, e.g., belong to the same video frame"), and the marker bit
/// ends it (RFC 7741 section 4.1 for VP8, RFC 6184 section 5.1 for H.264, RFC 3551 section 4.1).
///
/// A frame is **received** when its first packet reaches the capture point (or, with every
/// original lost, its first retransmission: `noteRetransmission`), and judged when the next
/// frame begins: **incomplete** when a packet is missing between the previous frame's marker
/// and its own, or its marker never came. Frame intervals (for the frame rate, the inter-frame
/// delay sums and `FreezeDetector`) run from one frame's arrival to the next one's, a frame
/// that came by retransmission included: a receiver shows it (after a blackout, Chromium
/// renders the frames NACKs brought back, and its freeze ends with the first of them).
///
/// Packets of a frame already passed (reordered or late) change nothing: the frame was judged.
/// A loss at a frame boundary whose marker packet was lost too is charged to the earlier frame
/// (without the payload the boundary cannot be told).
struct VideoFrameTracker: Sendable {
  var counts = MediaCounts()
  var freeze = FreezeDetector()
  /// The payload format, for key frames and resolution (only when SDP named it).
  var format = VideoPayloadFormat.unknown

  private var hasFrame = false
  private var timestamp: UInt32 = 0
  private var lowestSequence: UInt16 = 0
  private var markerSequence: UInt16 = 0
  private var markerSeen = false
  private var frameIsKey = false
  private var packets: Int32 = 0
  /// When the latest frame arrived (its first packet, or its first retransmission).
  private var lastFrameNanoseconds: Int64 = 0
  /// The marker of the previous frame, when it was seen: this frame's first packet follows it.
  private var previousMarker: UInt16 = 0
  private var previousMarkerKnown = false
  /// The timestamps of the latest frames, for telling a late packet or a retransmission of a
  /// frame already counted from one of a frame never seen.
  private var recent = RecentTimestamps()

  /// One packet of the stream (not a duplicate), in arrival order; `inOrder` false for a
  /// packet older than the highest sequence number (RFC 3550 A.1). `payload` is the RTP
  /// payload's captured bytes, read only for a known format.
  @inline(__always)
  mutating func record(
    sequence: UInt16, timestamp packetTimestamp: UInt32, marker: Bool, inOrder: Bool = true,
    arrivalNanoseconds: Int64, payload: UnsafeRawBufferPointer
  ) {
    if hasFrame && packetTimestamp == timestamp {
      packets &+= 1
      if Int16(bitPattern: sequence &- lowestSequence) < 0 { lowestSequence = sequence }
      if marker {
        markerSeen = true
        markerSequence = sequence
      }
      if format != .unknown && !frameIsKey { inspect(payload) }
      return
    }
    // A late packet belongs to a frame already judged, or too old to tell.
    if hasFrame && (!inOrder || recent.contains(packetTimestamp)) { return }
    startFrame(
      sequence: sequence, timestamp: packetTimestamp, marker: marker,
      arrivalNanoseconds: arrivalNanoseconds)
    if format != .unknown { inspect(payload) }
  }

  /// A packet of the stream's RFC 4588 retransmission stream, which carries the timestamp of
  /// the packet it repairs (RFC 4588 section 4): a frame none of whose packets came is
  /// received now, and the interval since the frame before it ends.
  ///
  /// The frame may be older than the current one (a NACK's repair) or newer: libwebrtc's
  /// payload padding repeats the newest packets it sent, so when the newest frame was lost
  /// its copy can arrive before the media's next frame, and the receiver counts and renders it
  /// (a Chromium H.264 call at 5 % loss: 2 such frames in 18 s, e2e/media/media-truth.sh).
  mutating func noteRetransmission(timestamp packetTimestamp: UInt32, arrivalNanoseconds: Int64) {
    guard hasFrame, packetTimestamp != timestamp else { return }
    // Behind, only a frame between the oldest one remembered and the current one can be told
    // new. Ahead, any: however long the media was cut (two calls' repeats came 5.2 s and 6 s
    // after the media's last frame), a sender repeats only frames it sent.
    let behind = RepairCheck.lag(of: packetTimestamp, behind: timestamp)
    guard behind < 0 || behind < recent.span(behind: timestamp),
      !recent.contains(packetTimestamp)
    else { return }
    recent.insert(packetTimestamp)
    counts.framesReceived += 1
    counts.framesRetransmitted += 1
    frameArrived(at: arrivalNanoseconds)
  }

  private mutating func startFrame(
    sequence: UInt16, timestamp packetTimestamp: UInt32, marker: Bool, arrivalNanoseconds: Int64
  ) {
    if hasFrame { closeFrame() }
    frameArrived(at: arrivalNanoseconds)
    hasFrame = true
    timestamp = packetTimestamp
    lowestSequence = sequence
    markerSequence = sequence
    markerSeen = marker
    frameIsKey = false
    packets = 1
    recent.insert(packetTimestamp)
    counts.framesReceived += 1
  }

  /// A frame arrived: the interval since the one before it is judged (`FreezeDetector`).
  private mutating func frameArrived(at arrivalNanoseconds: Int64) {
    defer { lastFrameNanoseconds = arrivalNanoseconds }
    guard hasFrame else { return }
    let interval = max(0, arrivalNanoseconds &- lastFrameNanoseconds)
    let seconds = Double(interval) * 1e-9
    counts.interFrameIntervals += 1
    counts.totalInterFrameDelaySeconds += seconds
    counts.totalSquaredInterFrameDelaySeconds += seconds * seconds
    switch freeze.judge(intervalNanoseconds: interval) {
    case .smooth: break
    case .freeze:
      counts.freezes += 1
      counts.freezesSeconds += seconds
    case .pause:
      counts.pauses += 1
      counts.pausesSeconds += seconds
    }
  }

  /// Judges the frame that just ended.
  private mutating func closeFrame() {
    let span = Int32(markerSequence &- lowestSequence) + 1
    let followsPrevious = !previousMarkerKnown || lowestSequence == previousMarker &+ 1
    if !(markerSeen && packets == span && followsPrevious) { counts.framesIncomplete += 1 }
    previousMarkerKnown = markerSeen
    previousMarker = markerSequence
  }

  private mutating func inspect(_ payload: UnsafeRawBufferPointer) {
    let facts = VideoPayloadInspector.inspect(payload, format: format)
    if facts.isKeyFrame && !frameIsKey {
      frameIsKey = true
      counts.keyFrames += 1
    }
    if facts.width > 0 && facts.height > 0 {
      counts.frameWidth = facts.width
      counts.frameHeight = facts.height
    }
  }
}

/// The RTP timestamps of the latest frames: a ring of 64 (two seconds at 30 frames a second),
/// searched only when a frame begins or a retransmission arrives.
struct RecentTimestamps: Sendable {
  static let capacity = 64
  private var timestamps = InlineArray<64, UInt32>(repeating: 0)
  private var count = 0
  private var next = 0

  func contains(_ timestamp: UInt32) -> Bool {
    for index in 0..<count where timestamps[index] == timestamp { return true }
    return false
  }

  mutating func insert(_ timestamp: UInt32) {
    timestamps[next] = timestamp
    next = (next + 1) % Self.capacity
    count = min(count + 1, Self.capacity)
  }

  /// How far behind `current` the oldest remembered timestamp is, in RTP units (0 when none).
  func span(behind current: UInt32) -> Int64 {
    var oldest: Int64 = 0
    for index in 0..<count {
      oldest = max(oldest, RepairCheck.lag(of: timestamps[index], behind: current))
    }
    return oldest
  }
}
