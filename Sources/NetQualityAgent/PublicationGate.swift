import Synchronization

/// Closed while a tick is harvested, scored and published, so that only one tick's peers and
/// streams are in memory: the ticker lets the previous tick's go before taking the next (at
/// 100,000 peers they are 37 MB, and a second set beside the next harvest and tick made the
/// agent's peak), and the readers that need them (the JSON API, the status page) wait for the
/// new ones — at most the tick's harvest, score and publish phases
/// (`netquality_tick_duration_seconds`: about 0.2 s at 100,000 peers, 20 ms at 10,000).
/// `/metrics` never waits: it serves the tick's rendered exposition, kept while the gate is
/// closed.
final class PublicationGate: Sendable {
  private struct State {
    var closed = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  var isClosed: Bool { state.withLock { $0.closed } }
  /// Readers waiting for the gate to open.
  var waitingReaders: Int { state.withLock { $0.waiters.count } }

  /// The ticker: the previous tick's peers are about to go.
  func close() {
    state.withLock { $0.closed = true }
  }

  /// The ticker: the new tick is published (or the tick ended without publishing). Every
  /// waiting reader resumes.
  func open() {
    let waiters = state.withLock { state in
      state.closed = false
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the gate is open: at once when it is, else when the ticker opens it (which it
  /// does on every path out of a tick, so the wait is bounded by the tick's duration).
  func waitUntilOpen() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let waiting = state.withLock { state in
        guard state.closed else { return false }
        state.waiters.append(waiter)
        return true
      }
      if !waiting { waiter.resume() }
    }
  }
}
