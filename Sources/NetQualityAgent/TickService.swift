import Foundation
import Logging
import NetQualityCore
import NetQualityExport
import ServiceLifecycle
import Synchronization

/// Closes a window every tick interval on wall-clock boundaries (capture timestamps are wall
/// clock too), publishes the result for the HTTP server, appends the dashboard frame and logs
/// the events.
public final class TickService: Service, Sendable {
  let state: AgentState
  let intervalSeconds: Double
  let dashboard: DashboardOutput?
  let peerGraceSeconds: Double
  let logger: Logger

  public init(
    state: AgentState, intervalSeconds: Double, dashboard: DashboardOutput?,
    peerGraceSeconds: Double,
    logger: Logger
  ) {
    self.state = state
    self.intervalSeconds = intervalSeconds
    self.dashboard = dashboard
    self.peerGraceSeconds = peerGraceSeconds
    self.logger = logger
  }

  public func run() async throws {
    let interval = Int64(intervalSeconds * 1e9)
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
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
    dashboard?.close()
  }

  func tick(at time: CaptureTime) {
    let (result, alerts, capture, streams) = state.engine.withLock { engine in
      let result = engine.tick(atWallClock: time)
      return (
        result, engine.firingAlerts, engine.analyzer.captureCounters, engine.analyzer.streamCount
      )
    }
    let grace = peerGraceSeconds
    state.update { published in
      var shown = result
      // Series of a peer given up disappear after the grace period.
      shown.snapshot.peers.removeAll { peer in
        peer.state == .timeout
          && result.snapshot.time.seconds(since: peer.stateSince) > grace
      }
      published.lastTick = shown
      published.alerts = alerts
      published.capture = capture
      published.trackedStreams = streams
    }
    for event in result.events {
      var metadata: Logger.Metadata = ["peer": "\(event.peer)", "event": "\(event.kind.rawValue)"]
      if let alert = event.alert {
        metadata["alert"] = "\(alert.rule)"
        logger.warning("\(alert.summary)", metadata: metadata)
      } else {
        logger.info("peer \(event.peer) \(event.kind.rawValue)", metadata: metadata)
      }
    }
    dashboard?.write(DashboardFrame.render(result, firingAlerts: alerts.count))
  }

  static func wallClock() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}

/// Where dashboard frames go: a file the agent appends to (created if missing), or stdout.
/// A failed write (full disk) is logged once and counted, and never stops the agent.
public final class DashboardOutput: Sendable {
  private let handle: FileHandle
  private let logger: Logger
  private let failures = Mutex(0)

  public init(path: String, logger: Logger) throws {
    self.logger = logger
    if path == "-" {
      handle = FileHandle.standardOutput
      return
    }
    if !FileManager.default.fileExists(atPath: path) {
      guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw AgentError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
      }
    }
    guard let opened = FileHandle(forWritingAtPath: path) else {
      throw AgentError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    opened.seekToEndOfFile()
    handle = opened
  }

  func write(_ frame: String) {
    do {
      try handle.write(contentsOf: Data(frame.utf8))
    } catch {
      let count = failures.withLock { count in
        count += 1
        return count
      }
      if count == 1 { logger.error("cannot write the dashboard: \(error.localizedDescription)") }
    }
  }

  func close() {
    if handle !== FileHandle.standardOutput { try? handle.close() }
  }
}
