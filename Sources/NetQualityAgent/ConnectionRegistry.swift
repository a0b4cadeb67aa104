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
  }

  private struct Entry {
    var channel: any Channel
    /// When it began to wait for a request, in the registry's own order of events (a count,
    /// not a clock, so that two connections never tie); nil while it has one in progress.
    var waitingSince: UInt64?
  }

  private struct State {
    var connections: [ObjectIdentifier: Entry] = [:]
    var counters = Counters()
    var events: UInt64 = 0

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
    _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
  }

  func countTimeout() {
    state.withLock { $0.counters.timedOut += 1 }
  }
}
