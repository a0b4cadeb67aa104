import Glibc

/// A non-blocking pipe that wakes a thread waiting in poll(2) on `readDescriptor`: a reload
/// that changed the probe targets, or the stop. Without one (pipe(2) failed) the descriptors
/// are -1 and the waiting thread notices within its poll timeout.
final class WakePipe: Sendable {
  let readDescriptor: Int32
  let writeDescriptor: Int32

  init() {
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
      for end in ends {
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      }
    }
    (readDescriptor, writeDescriptor) = (ends[0], ends[1])
  }

  deinit {
    if readDescriptor >= 0 { close(readDescriptor) }
    if writeDescriptor >= 0 { close(writeDescriptor) }
  }

  /// Wakes the waiting thread (a byte in the pipe; a full pipe has woken it already).
  func signal() {
    guard writeDescriptor >= 0 else { return }
    var one: UInt8 = 1
    _ = write(writeDescriptor, &one, 1)
  }

  /// Empties the pipe once the thread woke.
  func drain() {
    var drained = [UInt8](repeating: 0, count: 64)
    while read(readDescriptor, &drained, drained.count) > 0 {}
  }
}
