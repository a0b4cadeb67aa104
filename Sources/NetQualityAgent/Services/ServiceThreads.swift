import Foundation
import Glibc
import ServiceLifecycle
import Synchronization

/// The threads of a service whose work must never wait for Swift's concurrency pool: libpcap's
/// and poll(2)'s blocking calls, and the ticker, which a pool filled by requests (two threads on
/// a two-core host) would otherwise hold up. Each body runs on a thread of its own until it
/// sees `isStopping`; the service's task waits for all of them without occupying a pool thread.
final class ServiceThreads: Sendable {
  private let stopping = Atomic<Bool>(false)
  private let onStop: Mutex<[@Sendable () -> Void]> = Mutex([])

  init() {}

  /// Whether the bodies should return: set at graceful shutdown or cancellation.
  var isStopping: Bool { stopping.load(ordering: .relaxed) }

  /// `action` runs once when stopping begins (at once if it already has): wakes a body that
  /// waits on something other than the stop flag.
  func whenStopping(_ action: @escaping @Sendable () -> Void) {
    let now = onStop.withLock { actions -> Bool in
      if stopping.load(ordering: .relaxed) { return true }
      actions.append(action)
      return false
    }
    if now { action() }
  }

  /// Tells every body to return.
  func stop() {
    let actions = onStop.withLock { actions -> [@Sendable () -> Void] in
      stopping.store(true, ordering: .relaxed)
      defer { actions = [] }
      return actions
    }
    for action in actions { action() }
  }

  /// Names the calling thread for the system too (top -H, ps -L, /proc/PID/task/*/comm):
  /// Foundation keeps `Thread.name` to itself on Linux, and pthread_setname_np is a GNU
  /// extension Swift's Glibc does not export; /proc/thread-self/comm is the same setting
  /// (proc(5)), at most 15 bytes.
  static func nameForTheSystem(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
  }

  /// Starts each body on a thread named for it, stops them at the service group's graceful
  /// shutdown or the task's cancellation, and returns once that has happened and every body
  /// has returned (a body that ends early, or none at all, does not end the service: a service
  /// that returns would end the whole group).
  func run(_ bodies: [(name: String, body: @Sendable () -> Void)]) async {
    await withTaskCancellationOrGracefulShutdownHandler {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          await withCheckedContinuation { (stopped: CheckedContinuation<Void, Never>) in
            self.whenStopping { stopped.resume() }
          }
        }
        for (name, body) in bodies {
          group.addTask {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
              let thread = Thread {
                Self.nameForTheSystem(name)
                body()
                finished.resume()
              }
              thread.name = name
              thread.start()
            }
          }
        }
      }
    } onCancelOrGracefulShutdown: {
      self.stop()
    }
  }
}
