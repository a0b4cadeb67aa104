/// The `calls:` section: how many calls are tracked, how users are kept, and the window of the
/// failure-ratio alerts.
public struct CallSettings: Sendable, Equatable {
  /// Calls tracked at once (ringing, answered, held): beyond it a new call is not tracked and
  /// counted (`CallCounters.notTracked`), so memory stays bounded under any signalling flood.
  public var maxTracked = 50_000
  public var userMasking = UserMasking.off
  /// The span over which `call_failure_ratio` and `call_5xx_ratio` count the ended SIP calls.
  public var failureWindowSeconds = 300.0
  /// Fewer SIP calls ended in the window than this: no ratio (one failed call of one is not a
  /// page).
  public var failureMinimumCalls = 20
  /// A held call with nothing on the wire ends after this (RFC 4028 section 4: a session
  /// refreshes at least every 1800 s by default, so a live held call shows a re-INVITE or
  /// UPDATE before then).
  public var heldTimeoutSeconds = 1800.0
  /// SIP calls from one source address tracked at once that nothing has answered yet, not even
  /// a 100 Trying (a server answers an INVITE within 200 ms, RFC 3261 section 8.2.6.1, or the
  /// client sends it again after 500 ms, section 17.1.1.2). Beyond, a new INVITE from that
  /// source is not tracked and is counted: one host flooding INVITEs into silence cannot take
  /// the `maxTracked` slots from everyone else's calls. A proxy's calls are answered within
  /// milliseconds and never come near it (issue 37: 1,000 is 30 new calls a second into
  /// silence for Timer B's 32 s).
  public var maxSilentPerSource = 1_000
  /// SIP calls that ended with no response at all (Timer B ran out: scans, floods) recorded one
  /// by one, per source address and minute, and from all sources in a minute. Beyond, they
  /// are counted (`CallCounters`) and summed by source in each tick
  /// (`CallsSnapshot.unrecorded`), not written a history row each: 60,000 junk INVITEs in 2
  /// minutes made 52,522 records and 75.8 MB of history before (issue 37). A call anything
  /// answered is always recorded. 10 a source: a dead trunk's first calls show the pattern;
  /// 100 in all: 144,000 rows a day at most, whatever the number of sources.
  public var silentRecordsPerSourcePerMinute = 10
  public var silentRecordsPerMinute = 100

  public init() {}
}
