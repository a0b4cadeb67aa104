import Foundation
import Logging
import Synchronization

/// Where dashboard frames go: a file the agent appends to (created if missing), or stdout.
///
/// The file is opened with `O_APPEND`, so every frame lands at the file's end as it is then:
/// after logrotate's `copytruncate` the next frame starts the emptied file instead of landing
/// at the old offset behind a hole of NUL bytes. Before each frame (once a tick) the path is
/// looked up: a file moved away or deleted (logrotate without `copytruncate`) is followed by
/// a new one at the path. When the next frame would take the file past `Rotation.maxBytes`,
/// it is rotated the way logrotate numbers files: `file` → `file.1` → … → `file.<keep>`, the
/// oldest deleted. A failed write (full disk), rename or open is logged once per run of
/// failures and counted, and never stops the agent; stdout is never rotated.
public final class DashboardOutput: Sendable {
  /// When the file is rotated.
  public struct Rotation: Sendable, Equatable {
    /// The size a frame may not take the file past (0: never rotate). A file holds at least
    /// one frame, so a single frame larger than this still gets a file of its own.
    public var maxBytes: Int64
    /// Rotated files kept; 0: the file is deleted and started again.
    public var keep: Int

    public init(maxBytes: Int64, keep: Int) {
      self.maxBytes = maxBytes
      self.keep = keep
    }

    public static let never = Rotation(maxBytes: 0, keep: 0)
  }

  /// What the dashboard's files did since the agent started, across reloads (each reload opens
  /// a new output with the same counters), for `/metrics`.
  public final class Counters: Sendable {
    /// Frames that could not be written whole.
    public let failedWrites = Atomic<Int>(0)
    /// Files rotated to `file.1`.
    public let rotations = Atomic<Int>(0)
    /// Rotations that failed (a rename or the new file's open): the file grows meanwhile.
    public let rotationFailures = Atomic<Int>(0)

    public init() {}
  }

  /// The open file and which file it is, and the runs of failures already logged.
  private struct File {
    var descriptor: Int32
    var writeFailing = false
    var rotationFailing = false
    var reopenFailing = false
  }

  let path: String
  let rotation: Rotation
  public let counters: Counters
  private let logger: Logger
  private let file: Mutex<File>

  public init(
    path: String, rotation: Rotation = .never, counters: Counters = Counters(), logger: Logger
  ) throws {
    self.path = path
    self.rotation = rotation
    self.counters = counters
    self.logger = logger
    if path == "-" {
      file = Mutex(File(descriptor: STDOUT_FILENO))
      return
    }
    let opened = Self.open(path)
    guard opened >= 0 else {
      throw AgentError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    file = Mutex(File(descriptor: opened))
  }

  deinit {
    file.withLock { if $0.descriptor != STDOUT_FILENO { close($0.descriptor) } }
  }

  /// Appends one frame: first reopening the path if the file was moved away, then rotating if
  /// the frame would take the file past the limit.
  func write(_ frame: String) {
    var text = frame
    file.withLock { file in
      if path != "-" {
        reopenIfMoved(&file)
        if rotation.maxBytes > 0 { rotateIfFull(&file, adding: Int64(text.utf8.count)) }
      }
      let written = text.withUTF8 { bytes in Self.writeAll(file.descriptor, bytes) }
      if let reason = written {
        counters.failedWrites.add(1, ordering: .relaxed)
        if !file.writeFailing { logger.error("cannot write the dashboard to \(path): \(reason)") }
        file.writeFailing = true
      } else if file.writeFailing {
        logger.info("writing the dashboard to \(path) again")
        file.writeFailing = false
      }
    }
  }

  /// Opens the path again when it no longer names the open file (moved or deleted): one
  /// `stat` and one `fstat` a tick. If the new file cannot be opened, frames keep going to the
  /// old one and the next tick tries again.
  private func reopenIfMoved(_ file: inout File) {
    var atPath = stat()
    var current = stat()
    guard fstat(file.descriptor, &current) == 0 else { return }
    if stat(path, &atPath) == 0 && atPath.st_dev == current.st_dev
      && atPath.st_ino == current.st_ino
    {
      return
    }
    let failure = replace(&file)
    if let failure, !file.reopenFailing {
      logger.error("cannot reopen the dashboard file \(path): \(failure); writing to the old file")
    } else if failure == nil {
      logger.info("the dashboard file \(path) was moved or removed; writing a new one")
    }
    file.reopenFailing = failure != nil
  }

  private func rotateIfFull(_ file: inout File, adding bytes: Int64) {
    // While the path cannot be opened the frames go to the old file: renaming again would
    // shift (and delete) the rotated files every tick.
    guard !file.reopenFailing else { return }
    var current = stat()
    guard fstat(file.descriptor, &current) == 0 else { return }
    let size = Int64(current.st_size)
    guard size > 0, size + bytes > rotation.maxBytes else { return }
    // After a failed rename the file stays where it is; after a failed open the frames go to
    // `file.1` until the next tick finds the path empty and opens it.
    if let failure = renameChain() ?? replace(&file) {
      counters.rotationFailures.add(1, ordering: .relaxed)
      if !file.rotationFailing {
        let message =
          "cannot rotate the dashboard file \(path): \(failure); it grows past the limit until "
          + "a rotation succeeds"
        logger.error("\(message)")
      }
      file.rotationFailing = true
      return
    }
    counters.rotations.add(1, ordering: .relaxed)
    if file.rotationFailing {
      logger.info("rotating the dashboard file \(path) again")
      file.rotationFailing = false
    }
  }

  /// `file.<keep-1>` → `file.<keep>` … `file` → `file.1` (a rename replaces the file it lands
  /// on: the oldest is deleted), or with `keep` 0 the file deleted. Missing numbers are
  /// skipped; nil, or the first failure.
  private func renameChain() -> String? {
    guard rotation.keep > 0 else {
      return unlink(path) == 0 || errno == ENOENT ? nil : String(cString: strerror(errno))
    }
    for number in stride(from: rotation.keep - 1, through: 1, by: -1) {
      if rename("\(path).\(number)", "\(path).\(number + 1)") != 0 && errno != ENOENT {
        return "\(path).\(number): \(String(cString: strerror(errno)))"
      }
    }
    if rename(path, "\(path).1") != 0 && errno != ENOENT {
      return String(cString: strerror(errno))
    }
    return nil
  }

  /// Opens the path in place of the open file, which stays if that fails; nil, or why.
  private func replace(_ file: inout File) -> String? {
    let opened = Self.open(path)
    guard opened >= 0 else { return "open: \(String(cString: strerror(errno)))" }
    close(file.descriptor)
    file.descriptor = opened
    return nil
  }

  private static func open(_ path: String) -> Int32 {
    Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
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
