import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Reloads the configuration on SIGHUP (see `LiveConfiguration.reload`) on a thread of its
/// own, so that no reload holds up the next one or the agent's shutdown.
///
/// A reload reads files and parses YAML: bounded (`BoundedFileReader`), yet seconds for a file
/// near the 16 MiB bound in a debug build. Run in the signal loop, as it was, it held one of
/// the few cooperative threads that long, and a reload that never ended (`/dev/zero` or a
/// FIFO read as the configuration) kept every later SIGHUP waiting and SIGTERM from stopping
/// the agent: the group waits for each service's `run` to return. Here the loop only hands the
/// signal over and returns at shutdown at once; the process exits without waiting for a
/// reload in progress (a reload changes memory only, and the running configuration is
/// swapped in one step at its end).
final class ReloadService: Service, Sendable {
  let configuration: LiveConfiguration

  init(configuration: LiveConfiguration) {
    self.configuration = configuration
  }

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sighup)
    let reloads = ReloadThread { [configuration] in configuration.reload() }
    for await _ in signals.cancelOnGracefulShutdown() { reloads.request() }
    reloads.stop()
  }
}

/// One reload at a time on a thread of its own; SIGHUPs that arrive during a reload are folded
/// into one more after it (the file is read as it is then, which is what each of them asked).
final class ReloadThread: Sendable {
  private struct State {
    var pending = false
    var stopping = false
  }

  private let state = Mutex(State())
  private let wake = NSCondition()

  init(reload: @escaping @Sendable () -> Void) {
    let thread = Thread { [self] in
      while self.awaitRequest() { reload() }
    }
    thread.name = "netquality-reload"
    thread.start()
  }

  /// Asks for a reload: at once when none runs, else right after the one running.
  func request() {
    state.withLock { $0.pending = true }
    signal()
  }

  /// Ends the thread after the reload running, if any; does not wait for it.
  func stop() {
    state.withLock { $0.stopping = true }
    signal()
  }

  /// Waits for a request: true to reload, false once stopping.
  private func awaitRequest() -> Bool {
    wake.lock()
    defer { wake.unlock() }
    while true {
      let (stopping, pending) = state.withLock { state in
        defer { state.pending = false }
        return (state.stopping, state.pending)
      }
      if stopping { return false }
      if pending { return true }
      wake.wait()
    }
  }

  private func signal() {
    wake.lock()
    wake.signal()
    wake.unlock()
  }
}
