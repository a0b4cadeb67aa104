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
  /// The one reload thread, shared with `POST /-/reload`.
  let reloads: ReloadThread

  init(configuration: LiveConfiguration) {
    reloads = ReloadThread { [configuration] in configuration.reloadWithOutcome() }
  }

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sighup)
    for await _ in signals.cancelOnGracefulShutdown() { reloads.request() }
    reloads.stop()
  }
}

/// One reload at a time on a thread of its own; SIGHUPs that arrive during a reload are folded
/// into one more after it (the file is read as it is then, which is what each of them asked).
/// `POST /-/reload` waits for the reload that starts after its request and answers its outcome.
final class ReloadThread: Sendable {
  private struct State {
    var pending = false
    var stopping = false
    /// Waiting for the next reload to start and end.
    var waiters: [CheckedContinuation<LiveConfiguration.ReloadOutcome, Never>] = []
  }

  private let state = Mutex(State())
  private let wake = NSCondition()

  init(reload: @escaping @Sendable () -> LiveConfiguration.ReloadOutcome) {
    let thread = Thread { [self] in
      while let waiters = self.awaitRequest() {
        let outcome = reload()
        for waiter in waiters { waiter.resume(returning: outcome) }
      }
    }
    thread.name = "netquality-reload"
    thread.start()
  }

  /// Asks for a reload: at once when none runs, else right after the one running.
  func request() {
    state.withLock { $0.pending = true }
    signal()
  }

  /// Asks for a reload and returns its outcome (a reload that starts after the request).
  func reload() async -> LiveConfiguration.ReloadOutcome {
    await withCheckedContinuation { continuation in
      let stopping = state.withLock { state -> Bool in
        guard !state.stopping else { return true }
        state.waiters.append(continuation)
        state.pending = true
        return false
      }
      if stopping {
        continuation.resume(returning: .init(succeeded: false, lines: ["the agent is stopping"]))
      } else {
        signal()
      }
    }
  }

  /// Ends the thread after the reload running, if any; does not wait for it.
  func stop() {
    let waiters = state.withLock { state in
      state.stopping = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters {
      waiter.resume(returning: .init(succeeded: false, lines: ["the agent is stopping"]))
    }
    signal()
  }

  /// Waits for a request: the waiters of the reload to run, or nil once stopping.
  private func awaitRequest() -> [CheckedContinuation<LiveConfiguration.ReloadOutcome, Never>]? {
    wake.lock()
    defer { wake.unlock() }
    while true {
      let (stopping, waiters) = state.withLock {
        state -> (Bool, [CheckedContinuation<LiveConfiguration.ReloadOutcome, Never>]?) in
        if state.stopping { return (true, nil) }
        guard state.pending else { return (false, nil) }
        state.pending = false
        defer { state.waiters = [] }
        return (false, state.waiters)
      }
      if stopping { return nil }
      if let waiters { return waiters }
      wake.wait()
    }
  }

  private func signal() {
    wake.lock()
    wake.signal()
    wake.unlock()
  }
}
