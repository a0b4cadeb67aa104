import NetQualityCore

/// What a tick hands to every consumer: the engine's result, the alerts firing after it (the
/// engine's and the agent's own, such as a failing history), and the capture's counters.
struct TickPublication: Sendable {
  var result: Engine.TickResult
  var alerts: [Alert]
  var capture: CaptureCounters
  var trackedStreams: Int
}

/// A consumer of ticks: the HTTP state, the dashboard, the log, the history. Each takes the
/// publication as it is (values shared, not copied) and must not block: whatever is slow
/// (a disk) happens on the sink's own thread.
protocol TickSink: Sendable {
  var name: String { get }
  func publish(_ tick: TickPublication)
}
