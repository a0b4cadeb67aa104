/// Evaluates the alert rules on every peer at every tick and keeps the alerts' lifecycles.
public struct AlertEvaluator: Sendable {
  public var rules: [AlertRule]
  /// What each (rule, peer) measured over the ticks in a row it has held.
  private var streaks: [AlertKey: AlertEvidence] = [:]
  /// Firing alerts by (rule, peer).
  public private(set) var firing: [AlertKey: Alert] = [:]
  /// Every rule name that ever held for a peer (this run's rules and those a reload removed
  /// while they held): what `resolveAll(peer:)` looks up, so forgetting a peer costs one lookup
  /// per rule instead of a pass over every alert.
  private var ruleNames: Set<String> = []
  /// How many streaks each peer holds: a peer with none (a healthy fleet's every peer) costs
  /// one lookup per tick, not two per rule.
  private var streakCounts: [String: Int] = [:]

  /// A (rule, peer) pair.
  public struct AlertKey: Hashable, Sendable {
    public var rule: String
    public var peer: String
  }

  public init(rules: [AlertRule]) {
    self.rules = rules
  }

  /// Evaluates every rule on `peer` with `value(metric)`; `inputs(metric)` gives the scored
  /// window of the metric's direction, kept as evidence. A metric that cannot be measured now
  /// (nil) does not hold: its streak restarts and a firing alert on it resolves.
  mutating func evaluate(
    peer: String, at time: CaptureTime, value: (AlertRule.Metric) -> Double?,
    inputs: (AlertRule.Metric) -> QualityModel.Inputs? = { _ in nil },
    describe: (AlertRule, AlertEvidence) -> String
  ) -> [Alert] {
    var changes: [Alert] = []
    let hadStreaks = streakCounts[peer] != nil
    for rule in rules {
      let current = value(rule.metric)
      let holds = current.map { rule.comparison.holds($0, rule.threshold) } ?? false
      // Without a streak, the peer has nothing to restart or resolve either.
      guard holds || hadStreaks else { continue }
      let key = AlertKey(rule: rule.name, peer: peer)
      if holds, let current {
        if streaks[key] == nil {
          ruleNames.insert(rule.name)
          streakCounts[peer, default: 0] += 1
        }
        var streak = streaks[key] ?? AlertEvidence()
        streak.add(current, comparison: rule.comparison, inputs: inputs(rule.metric))
        streaks[key] = streak
        if streak.ticks >= rule.forTicks && firing[key] == nil {
          var labels = ["peer": peer]
          if let direction = rule.metric.direction { labels["direction"] = direction }
          let alert = Alert(
            id: "\(rule.name):\(peer):\(time.nanosecondsSinceEpoch / 1_000_000)", rule: rule.name,
            severity: rule.severity, labels: labels, state: .firing, start: time, end: nil,
            summary: describe(rule, streak))
          firing[key] = alert
          changes.append(alert)
        }
      } else {
        if streaks.removeValue(forKey: key) != nil { endStreak(of: peer) }
        if var alert = firing.removeValue(forKey: key) {
          alert.state = .resolved
          alert.end = time
          changes.append(alert)
        }
      }
    }
    return changes
  }

  /// Resolves every alert of `peer` (a clean end: BYE).
  mutating func resolveAll(peer: String, at time: CaptureTime) -> [Alert] {
    guard streakCounts.removeValue(forKey: peer) != nil else { return [] }
    var changes: [Alert] = []
    for rule in ruleNames.sorted() {
      let key = AlertKey(rule: rule, peer: peer)
      if var alert = firing.removeValue(forKey: key) {
        alert.state = .resolved
        alert.end = time
        changes.append(alert)
      }
      streaks[key] = nil
    }
    return changes
  }

  private mutating func endStreak(of peer: String) {
    guard let count = streakCounts[peer] else { return }
    streakCounts[peer] = count > 1 ? count - 1 : nil
  }

  /// Rebuilds the tables at the size of what is left once most entries are gone (see
  /// `Scorer.shrinkAfterChurn`).
  mutating func shrinkAfterChurn() {
    if streaks.capacity > 4 * max(streaks.count, 1024) {
      streaks = Dictionary(uniqueKeysWithValues: streaks.map { ($0.key, $0.value) })
    }
    if firing.capacity > 4 * max(firing.count, 1024) {
      firing = Dictionary(uniqueKeysWithValues: firing.map { ($0.key, $0.value) })
    }
    if streakCounts.capacity > 4 * max(streakCounts.count, 1024) {
      streakCounts = Dictionary(uniqueKeysWithValues: streakCounts.map { ($0.key, $0.value) })
    }
  }
}
