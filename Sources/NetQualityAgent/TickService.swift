import Foundation
import Logging
import NetQualityCore
import NetQualityExport
import ServiceLifecycle
import Synchronization

/// Closes a window every tick interval on wall-clock boundaries (capture timestamps are wall
/// clock too), publishes the result for the HTTP server, appends the dashboard frame and logs
/// the events. The interval is read before every wait, so a reload changes it at the next tick.
public final class TickService: Service, Sendable {
  let state: AgentState
  let logger: Logger

  public init(state: AgentState, logger: Logger) {
    self.state = state
    self.logger = logger
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
    let (result, alerts, capture, streams) = state.engine.withLock { engine in
      let result = engine.tick(atWallClock: time)
      return (
        result, engine.firingAlerts, engine.analyzer.captureCounters,
        engine.analyzer.liveStreamCount
      )
    }
    state.update { published in
      published.lastTick = result
      published.alerts = alerts
      published.capture = capture
      published.trackedStreams = streams
    }
    for event in result.events {
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
    let frame = DashboardFrame.render(result, firingAlerts: alerts.count)
    state.dashboard.withLock { $0 }?.write(frame)
  }

  static func wallClock() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}
