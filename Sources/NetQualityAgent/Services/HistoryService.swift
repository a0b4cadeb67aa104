import Foundation
import Logging
import NetQualityConfig
import NetQualityStore
import ServiceLifecycle

/// Runs the history recorder's writer thread for the agent's life: started with the agent,
/// and at shutdown given a few seconds to write what is queued (and the minute in progress).
struct HistoryService: Service {
  let recorder: HistoryRecorder
  let logger: Logger
  let shutdown: ShutdownClock

  /// Until when after the stop signal the queue may still be written. The agent exits within
  /// 5 s of SIGTERM at any load (issue 37): the Alertmanager's flush ends 0.5 s later, and at
  /// 100,000 peers one tick's rows took 5 s to write. A tick still being written at the
  /// deadline is never committed (SQLite rolls its transaction back) and the ticks left are
  /// logged.
  static let drainSecondsAfterSignal = 3.5

  /// The recorder `configuration` asks for, nil with storage off. A path that is a symbolic
  /// link stops the start (`HistoryDatabase.symbolicLinkProblem`): the recorder would refuse
  /// it at every attempt anyway.
  static func recorder(_ configuration: AgentConfiguration, logger: Logger) throws(AgentError)
    -> HistoryRecorder?
  {
    guard let path = configuration.historyPath else { return nil }
    if let problem = HistoryDatabase.symbolicLinkProblem(path: path) {
      throw .storage(problem)
    }
    let storage = configuration.storage
    let maintenance = HistoryMaintenance(
      rawRetentionSeconds: storage.rawRetentionHours * 3600,
      aggregateRetentionSeconds: storage.aggregateRetentionDays * 86_400,
      maxBytes: Int64(storage.maxSizeMegabytes) * 1_048_576)
    let settings = HistoryRecorder.Settings(
      path: path, maintenance: maintenance, writesStreams: storage.streamRows,
      runName: ProcessInfo.processInfo.hostName, version: BuildInfo.version)
    return HistoryRecorder(settings: settings) { level, message in
      switch level {
      case .info: logger.info("\(message)")
      case .warning: logger.warning("\(message)")
      case .error: logger.error("\(message)")
      }
    }
  }

  func run() async throws {
    recorder.start()
    try? await gracefulShutdown()
    let deadline = shutdown.deadline(afterSignal: Self.drainSecondsAfterSignal)
    let drained = await Task.detached { recorder.stop(deadline: deadline) }.value
    if !drained {
      let unwritten = recorder.counters.queueLength
      logger.warning(
        "history \(recorder.settings.path): stopped with \(unwritten) ticks unwritten \(Self.drainSecondsAfterSignal) s after the stop signal"
      )
    }
  }
}
