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

  public init() {}
}
