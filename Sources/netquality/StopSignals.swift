import Glibc
import Synchronization

/// SIGINT and SIGTERM ask a command's loop (reflect, probe) to stop; the loop looks at least
/// every 100 ms.
enum StopSignals {
  static let stopRequested = Atomic<Bool>(false)

  static func install() {
    for signalNumber in [SIGINT, SIGTERM] {
      // An atomic store is async-signal-safe.
      signal(signalNumber) { _ in StopSignals.stopRequested.store(true, ordering: .relaxed) }
    }
  }
}
