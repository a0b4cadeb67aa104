/// A stream's loss over one window, from the change of its counters since the previous tick
/// (RFC 3550 A.3: expected from the extended highest sequence number, lost = expected −
/// received):
///
/// - **Outage excluded**: packets lost across a silence long enough to be an outage are the
///   outage's, reported as a connection state (interrupted, disconnected); they count neither
///   as expected nor as lost in the window after it (`StreamCounts.silenceLoss`).
/// - **Signed change pooled**: a late packet may fill a gap an earlier window counted, so the
///   window's change of lost can be negative; pooled over the scoring windows it refunds that
///   loss (`lostChange`).
/// - **Clamped at 0 in the window**: a window never shows negative loss (`lost`).
struct WindowLoss {
  var expected: Int64
  var lost: Int64
  var lostChange: Int64

  init(_ change: StreamCounts) {
    expected = change.expected - change.silenceLoss
    lostChange = expected - change.counted
    lost = max(0, lostChange)
  }
}
