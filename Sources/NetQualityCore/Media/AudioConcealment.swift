/// An estimate of an audio stream's concealment from its RTP headers: what a receiver must
/// synthesise because packets never came.
///
/// webrtc-stats defines `concealedSamples` as samples "replaced with synthesized samples
/// generated locally before being played out", from lost packets or packets that arrive too
/// late to be played, and `concealmentEvents` as the times concealment starts after real
/// samples (RTCInboundRtpStreamStats, section 8.6). The capture point sees the loss, not the
/// receiver's jitter buffer, so the estimate is the loss part: each sequence gap of an
/// in-order packet is one event of (gap − 1) × the stream's packet time (its timestamp step
/// between consecutive packets), capped by the timestamp jump itself. A timestamp jump
/// without a sequence gap is discontinuous transmission (RFC 3389 comfort noise, Opus DTX,
/// RFC 7587 section 3.1.3): silence the sender chose, counted as `silenceSeconds`, never as
/// concealment.
struct AudioConcealment: Sendable {
  private var hasLast = false
  private var lastSequence: UInt16 = 0
  private var lastTimestamp: UInt32 = 0
  /// The timestamp step between consecutive packets (the packet time), 0 while unknown.
  private var packetTicks: Int64 = 0
  /// What was estimated, in RTP timestamp units and events.
  private(set) var concealedTicks: Int64 = 0
  private(set) var concealmentEvents: Int64 = 0
  private(set) var silenceTicks: Int64 = 0

  /// Sequence gaps this large are a restart, not a loss (RFC 3550 A.1 MAX_DROPOUT).
  static let maxDropout: UInt16 = 3000

  /// An in-order packet (a late or duplicate one changes nothing: its gap was charged).
  @inline(__always)
  mutating func record(sequence: UInt16, timestamp: UInt32, marker: Bool) {
    defer {
      hasLast = true
      lastSequence = sequence
      lastTimestamp = timestamp
    }
    guard hasLast else { return }
    let step = sequence &- lastSequence
    let ticks = Int64(Int32(bitPattern: timestamp &- lastTimestamp))
    guard step >= 1, step < Self.maxDropout, ticks > 0 else { return }
    if step == 1 {
      if packetTicks > 0 && ticks > packetTicks {
        silenceTicks += ticks - packetTicks
      } else if !marker && (packetTicks == 0 || ticks < packetTicks) {
        // The smallest step without a talkspurt start is the packet time.
        packetTicks = ticks
      }
      return
    }
    guard packetTicks > 0 else { return }
    let missing = Int64(step - 1)
    let concealed = min(missing * packetTicks, max(0, ticks - packetTicks))
    concealedTicks += concealed
    concealmentEvents += 1
  }

  /// The estimate in seconds, with the stream's clock (`secondsPerTick` = 1 / rate).
  func counts(secondsPerTick: Double) -> MediaCounts {
    var counts = MediaCounts()
    counts.concealedSeconds = Double(concealedTicks) * secondsPerTick
    counts.concealmentEvents = concealmentEvents
    counts.silenceSeconds = Double(silenceTicks) * secondsPerTick
    return counts
  }
}
