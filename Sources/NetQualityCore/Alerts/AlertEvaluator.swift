/// Evaluates the alert rules on every peer at every tick and keeps the alerts' lifecycles.
public struct AlertEvaluator: Sendable {
  public var rules: [AlertRule]
  /// What each (rule, peer) measured over the ticks in a row it has held.
  private var streaks: [String: AlertEvidence] = [:]
  /// Firing alerts by (rule, peer).
  public private(set) var firing: [String: Alert] = [:]

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
    for rule in rules {
      let key = "\(rule.name)|\(peer)"
      let current = value(rule.metric)
      let holds = current.map { rule.comparison.holds($0, rule.threshold) } ?? false
      if holds, let current {
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
        streaks[key] = nil
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
    var changes: [Alert] = []
    for key in firing.keys.sorted() where key.hasSuffix("|\(peer)") {
      if var alert = firing.removeValue(forKey: key) {
        alert.state = .resolved
        alert.end = time
        changes.append(alert)
      }
      streaks[key] = nil
    }
    return changes
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
  }
}
