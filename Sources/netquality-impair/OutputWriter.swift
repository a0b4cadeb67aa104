import Dispatch
import Glibc

/// The relay's file output (stats and packet log) on a thread of its own, at ordinary priority:
/// a write that waits on a busy disk once held the real-time socket loop for 100 ms, and every
/// packet due meanwhile left that much late.
final class OutputWriter: @unchecked Sendable {
  // @unchecked: `logFile` and `hasWarned` are used only on `queue` once the loop runs
  // (before that, only by `init` and `writeNow` on the one thread there is).
  private let queue = DispatchQueue(label: "netquality-impair.output")
  private let stats: StatsWriter?
  private let logFile: UnsafeMutablePointer<FILE>?
  private var hasWarned = false

  /// Opens the packet log (with its header) at once, so a path that cannot be written fails
  /// before the relay says it is listening.
  init(statsPath: String?, logPath: String?) throws(RelayError) {
    stats = statsPath.map { StatsWriter(path: $0) }
    guard let logPath else {
      logFile = nil
      return
    }
    guard let file = fopen(logPath, "w") else {
      throw .system("cannot open the packet log \(logPath)")
    }
    fputs(PacketLog.header, file)
    logFile = file
  }

  deinit {
    if let logFile { fclose(logFile) }
  }

  /// Writes the stats on the calling thread: the first write, whose failure stops the start.
  func writeNow(_ report: RelayReport) throws(RelayError) {
    try stats?.write(report)
  }

  /// Queues a write of the log lines and the stats; failures are reported once on stderr and
  /// relaying goes on (a test's packets matter more than one missed write).
  func submit(_ report: RelayReport, logLines: [UInt8]) {
    queue.async {
      do {
        try self.write(report, logLines: logLines)
      } catch {
        if !self.hasWarned {
          self.hasWarned = true
          warn("\(error) (relaying goes on; further failures are not reported)")
        }
      }
    }
  }

  /// Writes the last lines and the final stats after everything queued before.
  func finish(_ report: RelayReport, logLines: [UInt8]) throws(RelayError) {
    let outcome = queue.sync {
      Result { () throws(RelayError) in try write(report, logLines: logLines) }
    }
    try outcome.get()
  }

  private func write(_ report: RelayReport, logLines: [UInt8]) throws(RelayError) {
    Self.leaveRealTimePriority()
    if let logFile {
      let written = logLines.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, logFile) }
      guard written == logLines.count, fflush(logFile) == 0 else {
        throw .system("cannot write the packet log")
      }
    }
    try stats?.write(report)
  }

  /// The writer's thread may have inherited `chrt -f`; at real-time priority its encoding and
  /// writing could take a core from the socket loop.
  private static func leaveRealTimePriority() {
    var parameters = sched_param()
    parameters.sched_priority = 0
    _ = pthread_setschedparam(pthread_self(), SCHED_OTHER, &parameters)
  }
}
