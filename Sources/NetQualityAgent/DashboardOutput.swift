import Foundation
import Logging
import Synchronization

/// Where dashboard frames go: a file the agent appends to (created if missing), or stdout.
///
/// The file is opened with `O_APPEND`, so every frame lands at the file's end as it is then:
/// after logrotate's `copytruncate` the next frame starts the emptied file instead of landing
/// at the old offset behind a hole of NUL bytes. A failed write (full disk) is logged once per
/// run of failures and counted, and never stops the agent.
public final class DashboardOutput: Sendable {
  let path: String
  private let descriptor: Int32
  private let logger: Logger
  private let failing = Mutex(false)
  /// Frames that could not be written whole.
  public let failedWrites = Atomic<Int>(0)

  public init(path: String, logger: Logger) throws {
    self.path = path
    self.logger = logger
    if path == "-" {
      descriptor = STDOUT_FILENO
      return
    }
    let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard opened >= 0 else {
      throw AgentError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    descriptor = opened
  }

  deinit {
    if descriptor != STDOUT_FILENO { close(descriptor) }
  }

  func write(_ frame: String) {
    var text = frame
    let written = text.withUTF8 { bytes in Self.writeAll(descriptor, bytes) }
    failing.withLock { failing in
      if let reason = written {
        failedWrites.add(1, ordering: .relaxed)
        if !failing { logger.error("cannot write the dashboard to \(path): \(reason)") }
        failing = true
      } else if failing {
        logger.info("writing the dashboard to \(path) again")
        failing = false
      }
    }
  }

  /// Writes every byte (a write may be partial); nil, or why it failed.
  private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> String?
  {
    guard var pointer = bytes.baseAddress else { return nil }
    var remaining = bytes.count
    while remaining > 0 {
      let count = Glibc.write(descriptor, pointer, remaining)
      if count < 0 {
        if errno == EINTR { continue }
        return String(cString: strerror(errno))
      }
      remaining -= count
      pointer += count
    }
    return nil
  }
}
