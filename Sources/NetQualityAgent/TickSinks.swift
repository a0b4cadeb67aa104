import Logging
import NetQualityCore
import NetQualityExport
import NetQualityStore

/// The HTTP server's view: `/metrics` and the JSON API render the last publication. The
/// peers' worst-first order is sorted here, once per tick and outside both locks, so that no
/// request to `/api/v1/peers` sorts.
struct PublishedStateSink: TickSink {
  let state: AgentState
  var name: String { "http" }

  func publish(_ tick: TickPublication) {
    let table = PeerTable(tick.result.snapshot, sorted: [.worst])
    state.update { published in
      published.lastTick = tick.result
      published.peerTable = table
      published.alerts = tick.alerts
      published.capture = tick.capture
      published.trackedStreams = tick.trackedStreams
    }
  }
}

/// The text dashboard, appended to its file (or stdout) every tick.
struct DashboardSink: TickSink {
  let state: AgentState
  var name: String { "dashboard" }

  func publish(_ tick: TickPublication) {
    guard let output = state.dashboard.withLock({ $0 }) else { return }
    output.write(DashboardFrame.render(tick.result, firingAlerts: tick.alerts.count))
  }
}

/// One log line per event: state changes at info, alerts at warning with their summary.
struct LogSink: TickSink {
  let logger: Logger
  var name: String { "log" }

  func publish(_ tick: TickPublication) {
    for event in tick.result.events {
      var metadata: Logger.Metadata = ["peer": "\(event.peer)", "event": "\(event.kind.rawValue)"]
      if let reason = event.endReason { metadata["reason"] = "\(reason.rawValue)" }
      if let previous = event.previousState { metadata["from"] = "\(previous.rawValue)" }
      if let alert = event.alert {
        metadata["alert"] = "\(alert.rule)"
        logger.warning("\(alert.summary)", metadata: metadata)
      } else {
        logger.info("peer \(event.peer) \(event.kind.rawValue)", metadata: metadata)
      }
    }
  }
}

/// The SQLite history: the tick is queued for the recorder's thread, never written here.
struct HistorySink: TickSink {
  let recorder: HistoryRecorder
  let state: AgentState
  var name: String { "history" }

  func publish(_ tick: TickPublication) {
    let interfaces = state.read { $0.interfaces }
    let dropped = interfaces.values.reduce(Int64(0)) { $0 + Int64($1.droppedPackets) }
    let decodeErrors = tick.capture.decodeErrors.values.reduce(0, +)
    recorder.record(
      HistoryTick(
        tick.result,
        capture: HistoryTick.CaptureHealth(
          frames: tick.capture.frames, dropped: dropped, decodeErrors: decodeErrors)))
  }
}
