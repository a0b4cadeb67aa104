import Foundation
import ServiceLifecycle
import Synchronization

/// When the agent was told to stop (SIGTERM, SIGINT). The service group stops its services one
/// after another (in reverse order), so a service that drains a queue at its turn measures its
/// deadline from the signal, not from its turn: the agent then exits within 5 s of SIGTERM
/// however long the services before it took (issue 37: at 100,000 peers the ticker's last
/// tick and the HTTP server took 2 s before the history's turn came).
///
/// It is the last service of the group, so the first told to stop.
final class ShutdownClock: Service, Sendable {
  private let signalled = Mutex<Date?>(nil)

  init() {}

  func run() async throws {
    try? await gracefulShutdown()
    signalled.withLock { $0 = $0 ?? Date() }
  }

  /// `seconds` after the signal; after now when no signal came (a service stopping otherwise).
  func deadline(afterSignal seconds: Double) -> Date {
    (signalled.withLock { $0 } ?? Date()).addingTimeInterval(seconds)
  }
}
