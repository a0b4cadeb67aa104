/// Recent sender reports of one RTP sender, so a receiver report that echoes one (LSR) can be
/// turned into a round-trip time as seen from the capture point.
///
/// RFC 3550 section 6.4.1: RTT = A - LSR - DLSR at the sender. A passive tap has no clock of the
/// sender's, but it saw the SR go by: RR arrival - SR arrival - DLSR is the round trip from the
/// tap to the receiver and back.
struct SenderReportHistory {
  /// Enough for several report intervals even when SRs come every second.
  static let capacity = 8
  /// How far below 0 a round trip may come out and still count as 0: one millisecond tick of
  /// the receiver's clock plus a DLSR unit.
  static let negativeToleranceSeconds = 0.001 + 1.0 / 65536

  private var compactNTP = InlineArray<8, UInt32>(repeating: 0)
  private var arrivals = InlineArray<8, Int64>(repeating: 0)
  private var next = 0
  private var stored = 0

  mutating func add(compactNTP value: UInt32, arrivalNanoseconds: Int64) {
    compactNTP[next] = value
    arrivals[next] = arrivalNanoseconds
    next = (next + 1) % Self.capacity
    stored = min(stored + 1, Self.capacity)
  }

  /// Arrival time of the SR whose compact NTP timestamp is `lastSR`.
  func arrival(ofLastSR lastSR: UInt32) -> Int64? {
    for index in 0..<stored where compactNTP[index] == lastSR { return arrivals[index] }
    return nil
  }

  /// Round trip in seconds from an RR arriving at `arrivalNanoseconds`; nil when the SR was
  /// not seen or the result is impossible (negative beyond clock resolution).
  func roundTripSeconds(
    lastSR: UInt32, delaySinceLastSR: UInt32, arrivalNanoseconds: Int64
  ) -> Double? {
    guard lastSR != 0, let sent = arrival(ofLastSR: lastSR) else { return nil }
    // DLSR is in units of 1/65536 s (RFC 3550 section 6.4.1).
    let seconds = Double(arrivalNanoseconds - sent) * 1e-9 - Double(delaySinceLastSR) / 65536
    // A near-zero round trip comes out slightly negative when the receiver's DLSR is rounded
    // up: by a unit of 1/65536 s, or by its own clock's millisecond (baresip times DLSR with a
    // millisecond timer: -0.3 ms at 0 ms of delay in the e2e SIP run). Such a sample says "about
    // 0"; anything more negative pairs the wrong SR and is dropped.
    guard seconds >= -Self.negativeToleranceSeconds else { return nil }
    return max(0, seconds)
  }
}
