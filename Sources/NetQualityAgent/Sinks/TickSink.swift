import NetQualityCore
import NetQualityExport

/// What a tick hands to every consumer: the engine's result, the alerts firing after it (the
/// engine's and the agent's own, such as a failing history), and the capture's counters.
struct TickPublication: Sendable {
  var result: Engine.TickResult
  var alerts: [Alert]
  var capture: CaptureCounters
  /// Live streams, and the slots of the analyzer's stream arrays (live plus free for reuse).
  var trackedStreams: Int
  var streamSlots = 0
  var timing = TickTiming()
}

/// How long the last tick took: the harvest (the captures held up) and the scoring (capture
/// going on meanwhile), for `netquality_tick_duration_seconds`.
struct TickTiming: Sendable {
  var harvestSeconds = 0.0
  var scoreSeconds = 0.0
  /// Handing the result to every sink (the HTTP state, the dashboard, the log, the history).
  var publishSeconds = 0.0
  /// How long after its boundary the tick started (a stopped or starved process wakes late).
  var lateSeconds = 0.0
  /// Boundaries passed without a tick since the start (late wake-ups).
  var skippedTicks: Int64 = 0
  /// Every earlier tick since the start: the time from its boundary until every sink had it,
  /// and the seconds spent in each phase, so that Prometheus recovers a late or long tick
  /// between two scrapes of any interval (the gauges above show the last tick only).
  var completion = DelayHistogram(boundsSeconds: EngineCollector.tickCompletionBoundsSeconds)
  var harvestSecondsTotal = 0.0
  var scoreSecondsTotal = 0.0
  var publishSecondsTotal = 0.0
}

/// A consumer of ticks: the HTTP state, the dashboard, the log, the history. Each takes the
/// publication as it is (values shared, not copied) and must not block: whatever is slow
/// (a disk) happens on the sink's own thread.
protocol TickSink: Sendable {
  var name: String { get }
  func publish(_ tick: TickPublication)
}
