import Foundation
import Logging
import NetQualityCore
import NetQualityExport
import NetQualityStore
import ServiceLifecycle
import Synchronization

/// Closes a window every tick interval on wall-clock boundaries (capture timestamps are wall
/// clock too) and hands the result to each sink: the HTTP state, the dashboard, the log and
/// the history. The interval is read before every wait, so a reload changes it at the next
/// tick.
public final class TickService: Service, Sendable {
  let state: AgentState
  let sinks: [any TickSink]

  init(state: AgentState, sinks: [any TickSink]) {
    self.state = state
    self.sinks = sinks
  }

  public func run() async throws {
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
      let interval = CaptureTime.nanoseconds(
        state.engine.withLock { $0.configuration.tickIntervalSeconds })
      let now = Self.wallClock()
      let next = (now / interval + 1) * interval
      do {
        try await cancelWhenGracefulShutdown {
          try await Task.sleep(for: .nanoseconds(next - now))
        }
      } catch {
        break
      }
      tick(at: CaptureTime(nanosecondsSinceEpoch: next))
    }
  }

  func tick(at time: CaptureTime) {
    let publication = state.engine.withLock { engine in
      TickPublication(
        result: engine.tick(atWallClock: time), alerts: engine.firingAlerts,
        capture: engine.analyzer.captureCounters, trackedStreams: engine.analyzer.liveStreamCount)
    }
    var withAgentAlerts = publication
    withAgentAlerts.alerts += agentAlerts()
    for sink in sinks { sink.publish(withAgentAlerts) }
  }

  /// The agent's own alerts, beside the engine's per-peer ones: the history failing to write.
  func agentAlerts() -> [Alert] {
    guard let recorder = state.history, let since = recorder.counters.faultSince,
      let fault = recorder.counters.fault
    else { return [] }
    let start = CaptureTime(nanosecondsSinceEpoch: CaptureTime.nanoseconds(since))
    return [
      Alert(
        id: "storage_failing", rule: "storage_failing", severity: .critical,
        labels: ["kind": fault.kind.rawValue], state: .firing, start: start, end: nil,
        summary: "history \(recorder.settings.path) cannot be written: \(fault.message)")
    ]
  }

  static func wallClock() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}
