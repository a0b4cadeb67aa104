import Synchronization

/// How far each capture thread has read its ring, in wall-clock time: the ticker of a late tick
/// (a stopped or starved process) waits until every capture has read what the kernel buffered
/// meanwhile, so the tick scores the packets of its window instead of reading the backlog's
/// silence as an interruption.
final class CaptureProgress: Sendable {
  /// Per capture thread (by interface index): the wall-clock time, in nanoseconds since the
  /// epoch, of the start of its latest poll after which it read everything pending;
  /// `Int64.max` while it is not capturing (nothing to wait for).
  private let drainedSince: Mutex<[Int64]>

  init(captures: Int) {
    drainedSince = Mutex(Array(repeating: .max, count: max(0, captures)))
  }

  /// A capture thread: everything stamped before `wallClockNanoseconds` has been read.
  func drained(_ capture: Int, since wallClockNanoseconds: Int64) {
    drainedSince.withLock { times in
      if times.indices.contains(capture) { times[capture] = wallClockNanoseconds }
    }
  }

  /// A capture thread that stops capturing (its interface failed, shutdown).
  func idle(_ capture: Int) {
    drainedSince.withLock { times in
      if times.indices.contains(capture) { times[capture] = .max }
    }
  }

  /// Whether every capture has read what was stamped before `wallClockNanoseconds`.
  func hasDrained(until wallClockNanoseconds: Int64) -> Bool {
    drainedSince.withLock { times in times.allSatisfy { $0 >= wallClockNanoseconds } }
  }
}
