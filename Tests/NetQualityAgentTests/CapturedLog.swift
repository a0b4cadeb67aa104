import Logging
import Synchronization

/// A logger that keeps what it is given, to assert on the lines an agent component logs.
final class CapturedLog: Sendable {
  struct Line: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
  }

  private let stored = Mutex<[Line]>([])

  var lines: [Line] { stored.withLock { $0 } }

  var logger: Logger {
    Logger(label: "test") { _ in Handler(log: self) }
  }

  private struct Handler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let line = Line(
        level: event.level, message: event.message.description,
        metadata: metadata.merging(event.metadata ?? [:]) { $1 })
      log.stored.withLock { $0.append(line) }
    }
  }
}
