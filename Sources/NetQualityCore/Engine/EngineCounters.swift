/// Fleet-wide counters since the engine started, for `/metrics` (issue 25: what an alert or a
/// tick showed must be recoverable by Prometheus at any scrape interval — a 15 s outage between
/// two 60 s scrapes shows as an increase of these): peer-seconds at each level shown, connection
/// state transitions by the state entered, and alerts fired by rule.
public struct EngineCounters: Sendable, Equatable {
  /// Peer-seconds at each level shown: rx levels 0...6, then tx levels 0...6.
  public private(set) var levelSeconds = [Double](repeating: 0, count: 14)
  /// Transitions by the state entered (`recovered` counts the returns to connected).
  public private(set) var transitions: [String: Int64] = [:]
  /// Alerts fired, by rule name.
  public private(set) var alertsFired: [String: Int64] = [:]

  /// The event kinds counted as transitions, in the order the metrics list them.
  public static let transitionKinds: [EngineEvent.Kind] = [
    .connected, .interrupted, .disconnected, .timeout, .recovered, .ended, .held,
  ]

  public init() {}

  /// Peer-seconds with `level` shown in `direction`.
  public func seconds(_ direction: PeerLevelCounters.Direction, _ level: QualityLevel) -> Double {
    levelSeconds[direction.rawValue * 7 + level.rawValue]
  }

  mutating func record(_ peer: PeerSnapshot, seconds: Double) {
    levelSeconds[peer.rx.level.rawValue] += max(0, seconds)
    levelSeconds[7 + peer.tx.level.rawValue] += max(0, seconds)
  }

  mutating func record(_ event: EngineEvent) {
    switch event.kind {
    case .connected, .interrupted, .disconnected, .timeout, .recovered, .ended, .held:
      transitions[event.kind.rawValue, default: 0] += 1
    case .alertFiring:
      if let rule = event.alert?.rule { alertsFired[rule, default: 0] += 1 }
    case .alertResolved, .linkDown, .linkUp:
      break
    }
  }
}
