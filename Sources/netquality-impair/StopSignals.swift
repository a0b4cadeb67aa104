import Glibc
import Synchronization

/// The signal that asked the relay to stop, 0 until one has. A global because a C signal
/// handler can capture nothing; an atomic because the handler may run at any instruction.
private let receivedStopSignal = Atomic<Int32>(0)

/// SIGINT and SIGTERM stop the relay cleanly (final stats, exit 0). They are blocked except
/// inside `pselect`, whose mask lets them in: a signal that comes while the relay is busy ends
/// the next wait at once, instead of slipping in between a check and the wait and being noticed
/// only at the next timeout (the race pselect was made for).
struct StopSignals {
  /// The mask to wait with: the one before `install`, with SIGINT and SIGTERM let through.
  private(set) var waitMask = sigset_t()

  static func install() -> StopSignals {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
      receivedStopSignal.store(signal, ordering: .relaxed)
    }
    sigemptyset(&action.sa_mask)
    var blocked = sigset_t()
    sigemptyset(&blocked)
    for signal in [SIGINT, SIGTERM] {
      // Also when started with SIGINT ignored (a background job of a script): the tests stop
      // the relay with it.
      sigaction(signal, &action, nil)
      sigaddset(&blocked, signal)
    }
    var signals = StopSignals()
    sigprocmask(SIG_BLOCK, &blocked, &signals.waitMask)
    sigdelset(&signals.waitMask, SIGINT)
    sigdelset(&signals.waitMask, SIGTERM)
    return signals
  }

  var isStopRequested: Bool { receivedStopSignal.load(ordering: .relaxed) != 0 }
}
