import Foundation
import XCTest

/// The `netquality` binary as a process whose every wait is bounded. Output goes to files, so
/// no pipe can fill and stall it; a process that outlives its deadline is stopped with SIGINT,
/// then SIGTERM, then SIGKILL, and the test says what it waited for.
final class BinaryProcess {
  let process = Process()
  let standardOutputURL: URL
  let standardErrorURL: URL
  private let exited = DispatchSemaphore(value: 0)
  private var hasExited = false
  let commandLine: String

  /// Seconds each signal of `stop` is given before the next.
  static let graceSeconds = 5.0

  init(
    binary: URL, arguments: [String], directory: URL, input: URL? = nil,
    launcher: [String] = []
  ) throws {
    let name = UUID().uuidString
    standardOutputURL = directory.appendingPathComponent("\(name).out")
    standardErrorURL = directory.appendingPathComponent("\(name).err")
    _ = FileManager.default.createFile(atPath: standardOutputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
    if let first = launcher.first {
      process.executableURL = URL(fileURLWithPath: first)
      process.arguments = Array(launcher.dropFirst()) + [binary.path] + arguments
    } else {
      process.executableURL = binary
      process.arguments = arguments
    }
    commandLine = (launcher + ["netquality"] + arguments).joined(separator: " ")
    process.standardInput =
      try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: standardOutputURL)
    process.standardError = try FileHandle(forWritingTo: standardErrorURL)
    let semaphore = exited
    process.terminationHandler = { _ in semaphore.signal() }
    try process.run()
  }

  deinit {
    if !hasExited { _ = stop() }
  }

  /// Waits up to `seconds` for the process to exit on its own.
  func waitForExit(seconds: Double) -> Bool {
    if hasExited { return true }
    hasExited = exited.wait(timeout: .now() + seconds) == .success
    return hasExited
  }

  /// Stops the process: SIGINT, then SIGTERM, then SIGKILL, each given `graceSeconds`.
  /// Returns the signal that ended it (0 if it had already exited).
  @discardableResult
  func stop() -> Int32 {
    if waitForExit(seconds: 0) { return 0 }
    for signal in [SIGINT, SIGTERM, SIGKILL] {
      kill(process.processIdentifier, signal)
      if waitForExit(seconds: signal == SIGKILL ? 30 : Self.graceSeconds) { return signal }
    }
    return SIGKILL
  }

  var status: Int32 { process.terminationStatus }
  var standardOutput: String { Self.read(standardOutputURL) }
  var standardError: String { Self.read(standardErrorURL) }
  var standardOutputBytes: Int {
    (try? FileManager.default.attributesOfItem(atPath: standardOutputURL.path)[.size] as? Int)
      .flatMap { $0 } ?? 0
  }

  /// Polls standard error (the agent's log) until it contains `text`, for up to `seconds`.
  func waitForLog(_ text: String, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
      if standardError.contains(text) { return true }
      if waitForExit(seconds: 0.05) { return standardError.contains(text) }
    } while Date() < deadline
    return false
  }

  private static func read(_ url: URL) -> String {
    String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
  }
}
