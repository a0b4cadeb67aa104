/// What a call follows of each stream it lists between ticks: the stream's loss since the call
/// had it, from the stream's cumulative counters (RFC 3550 appendix A.3: expected from the
/// extended highest sequence number, lost = expected − received), and its silences, which make
/// the call's outages.
///
/// Issue 38: the call used to sum the windows' loss, and a window leaves out the jump of
/// sequence numbers across a silence (`WindowLoss`: that loss is the connection state's for the
/// peer), so a call through a blackout lost 226 packets where the drops were 720. Its outages
/// came from one connection state over all its streams, so a leg out for 16 s while the other
/// flowed was no outage, and a 5 s blackout was one only when a tick fell in its last second.
struct CallStreamTrack {
  /// The stream's cumulative loss before the call had it: 0 for a stream born with its call;
  /// for a stream a new media call takes over, its loss up to the first window the call sees.
  var lostBefore: Int64?
  /// The stream's latest packet as of the previous tick.
  var lastArrival: CaptureTime?
  /// A whole tick went by without a packet of the stream since `lastArrival`.
  var silentTick = false
  /// An audio stream of a call with comfort noise (`CallState.comfortNoise`): its silences
  /// are voice activity detection's, no outage.
  var silenceAllowed = false
}

/// A stretch of a call's media without packets (`CallState.noteSilence`).
struct OutageSpan {
  var start: CaptureTime
  var end: CaptureTime

  /// Spans kept per call: a call with more outages than that is beyond quoting them one by
  /// one; the ones after are merged into the last.
  static let maxKept = 64

  /// The outages of overlapping spans counted once: how many, and their seconds in all.
  static func union(_ spans: [OutageSpan]) -> (count: Int, seconds: Double) {
    var count = 0
    var seconds = 0.0
    var current: OutageSpan?
    for span in spans.sorted(by: { $0.start < $1.start }) {
      if var open = current, span.start <= open.end {
        open.end = max(open.end, span.end)
        current = open
        continue
      }
      if let open = current { seconds += max(0, open.end.seconds(since: open.start)) }
      count += 1
      current = span
    }
    if let open = current { seconds += max(0, open.end.seconds(since: open.start)) }
    return (count, seconds)
  }
}
