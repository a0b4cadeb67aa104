import NetQualityExport
import NetQualityStore

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
          frames: tick.capture.frames, dropped: dropped, decodeErrors: decodeErrors),
        renderCall: CallsJSON.recordText))
  }
}
