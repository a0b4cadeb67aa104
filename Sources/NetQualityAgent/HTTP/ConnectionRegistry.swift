import Dispatch
import NIOCore
import Synchronization

/// The agent's open HTTP connections, shared by every connection's `ConnectionGuardHandler`.
///
/// At the cap, a new connection takes the place of the connection that has waited longest for
/// a request (a client that connected and sent nothing yet, or an idle keep-alive one) rather
/// than being refused: a flood of slow clients then only displaces itself, and a scraper, which
/// sends its request at once, always gets in. Only when every connection is busy with a
/// request is the new one refused.
public final class ConnectionRegistry: Sendable {
  public struct Counters: Sendable, Equatable {
    public var open = 0
    /// Connections closed to make room for a new one.
    public var evicted: Int64 = 0
    /// New connections closed because every slot was busy with a request.
    public var refused: Int64 = 0
    /// Connections closed because a request did not arrive in time.
    public var timedOut: Int64 = 0
    /// Connections closed for sending more requests ahead than `HTTPLimits.maxPipelinedRequests`.
    public var pipelining: Int64 = 0
    /// Connections closed because their client left answers unread for the request timeout.
    public var notReading: Int64 = 0
  }

  private struct Entry {
    var channel: any Channel
    /// When it began to wait for a request, in the registry's own order of events (a count,
    /// not a clock, so that two connections never tie); nil while it has one in progress.
    var waitingSince: UInt64?
    /// What to do when the client goes away (closes, resets, or shuts down its sending side),
    /// by token: drop the work of a request it will never read the answer of.
    var onGone: [UInt64: @Sendable () -> Void] = [:]
  }

  private struct State {
    var connections: [ObjectIdentifier: Entry] = [:]
    var counters = Counters()
    var events: UInt64 = 0
    /// Connections closed since the heap was last trimmed.
    var closedSinceTrim = 0

    mutating func nextEvent() -> UInt64 {
      events += 1
      return events
    }
  }

  public let limits: HTTPLimits
  private let state = Mutex(State())

  public init(limits: HTTPLimits) {
    self.limits = limits
  }

  public var counters: Counters {
    state.withLock { state in
      var counters = state.counters
      counters.open = state.connections.count
      return counters
    }
  }

  /// Takes in a new connection, closing the longest-waiting one to make room at the cap.
  /// False: every slot is busy and the new connection must be closed.
  func admit(_ channel: any Channel) -> Bool {
    var victim: (any Channel)?
    let admitted = state.withLock { state -> Bool in
      if state.connections.count >= limits.maxConnections {
        let waiting = state.connections.compactMap { key, entry in
          entry.waitingSince.map { (key, $0) }
        }
        guard let oldest = waiting.min(by: { $0.1 < $1.1 }) else {
          state.counters.refused += 1
          return false
        }
        victim = state.connections.removeValue(forKey: oldest.0)?.channel
        state.counters.evicted += 1
      }
      state.connections[ObjectIdentifier(channel)] = Entry(
        channel: channel, waitingSince: state.nextEvent())
      return true
    }
    victim?.close(promise: nil)
    return admitted
  }

  /// The connection has a request in progress (false) or waits for one (true).
  func setWaiting(_ channel: any Channel, _ waiting: Bool) {
    state.withLock { state in
      let since = waiting ? state.nextEvent() : nil
      state.connections[ObjectIdentifier(channel)]?.waitingSince = since
    }
  }

  func remove(_ channel: any Channel) {
    let (entry, trim) = state.withLock { state in
      let entry = state.connections.removeValue(forKey: ObjectIdentifier(channel))
      state.closedSinceTrim += 1
      // A burst of connections is over: what they held is free but stays in glibc's arenas
      // unless given back (500 clients left 1.6 GB resident after they had gone).
      let trim =
        state.closedSinceTrim >= Self.trimAfterClosing
        && state.connections.count <= limits.maxConnections / 8
      if trim { state.closedSinceTrim = 0 }
      return (entry, trim)
    }
    for action in entry?.onGone.values ?? [:].values { action() }
    if trim { DispatchQueue.global(qos: .utility).async { MemoryTrim.releaseFreePages() } }
  }

  /// Connections closed before the heap is trimmed, once few remain open: a scraper's
  /// connection a scrape would trim every few minutes at most; a flood, when it ends.
  static let trimAfterClosing = 256

  /// Runs `action` once when the client of `channel` goes away (at once if it has, or if the
  /// connection is not one of the registry's); returns a token for `forget`.
  func whenClientGone(_ channel: any Channel, _ action: @escaping @Sendable () -> Void) -> UInt64 {
    let token = state.withLock { state -> UInt64? in
      let token = state.nextEvent()
      guard state.connections[ObjectIdentifier(channel)] != nil else { return nil }
      state.connections[ObjectIdentifier(channel)]?.onGone[token] = action
      return token
    }
    guard let token else {
      action()
      return 0
    }
    return token
  }

  /// The request is answered: its action is no longer needed.
  func forget(_ channel: any Channel, token: UInt64) {
    state.withLock { state in
      _ = state.connections[ObjectIdentifier(channel)]?.onGone.removeValue(forKey: token)
    }
  }

  /// The client shut down its sending side (a FIN; Hummingbird allows half-closed connections)
  /// or the connection closed: every pending action runs.
  func clientGone(_ channel: any Channel) {
    let actions = state.withLock { state -> [@Sendable () -> Void] in
      guard let entry = state.connections[ObjectIdentifier(channel)] else { return [] }
      state.connections[ObjectIdentifier(channel)]?.onGone = [:]
      return Array(entry.onGone.values)
    }
    for action in actions { action() }
  }

  func countTimeout() {
    state.withLock { $0.counters.timedOut += 1 }
  }

  func countPipelining() {
    state.withLock { $0.counters.pipelining += 1 }
  }

  func countNotReading() {
    state.withLock { $0.counters.notReading += 1 }
  }
}
