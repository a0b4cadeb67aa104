import NetQualityCore
import Yams

/// Alert rules (docs/quality-model.md, "Alerts") and where alerts are pushed. The rules apply
/// at the next tick of a reload (removed or changed ones resolve their alerts); the
/// Alertmanager notifier is started once, with the agent.
enum AlertKeys {
  static let all: [ConfigurationKey] = [
    .value("alerts", \.engine.alertRules, .live) { walker, node, _ in walker.alertRules(node) }
  ]

  static let alertmanager: [ConfigurationKey] = [
    .value("alertmanager", \.alertmanager, .restart) { walker, node, _ in
      var settings = AlertmanagerSettings()
      walker.applyAlertmanager(node, to: &settings)
      return settings
    }
  ]
}

extension Walker {
  mutating func alertRules(_ node: Node) -> [AlertRule] {
    let fields = entries(node, "alerts", known: ["builtin", "rules"])
    var rules: [AlertRule] = []
    if let node = fields["builtin"] {
      if bool(node, "alerts.builtin") ?? true { rules = AlertRule.builtIn }
    } else {
      rules = AlertRule.builtIn
    }
    guard let list = fields["rules"] else { return rules }
    for (index, item) in self.list(list, "alerts.rules").enumerated() {
      let path = "alerts.rules[\(index)]"
      let rule = entries(
        item, path,
        known: [
          "name", "metric", "op", "threshold", "for_ticks", "keep_firing_for_ticks",
          "clear_threshold", "severity",
        ])
      guard let name = rule["name"].flatMap({ string($0, "\(path).name") }),
        let metricText = rule["metric"].flatMap({ string($0, "\(path).metric") }),
        let thresholdNode = rule["threshold"]
      else {
        issue(item, path, "a rule needs name, metric and threshold")
        continue
      }
      guard let metric = AlertRule.Metric(rawValue: metricText) else {
        let names = AlertRule.Metric.allCases.map(\.rawValue).joined(separator: ", ")
        issue(
          rule["metric"], "\(path).metric", "unknown metric '\(metricText)'; metrics are \(names)")
        continue
      }
      let opText = rule["op"].flatMap { string($0, "\(path).op") } ?? ">"
      guard let comparison = AlertRule.Comparison(rawValue: opText) else {
        issue(rule["op"], "\(path).op", "unknown comparison '\(opText)'; use >, >=, <, <= or ==")
        continue
      }
      let severityText = rule["severity"].flatMap { string($0, "\(path).severity") } ?? "warning"
      guard let severity = AlertRule.Severity(rawValue: severityText) else {
        issue(
          rule["severity"], "\(path).severity",
          "unknown severity '\(severityText)'; use info, warning or critical")
        continue
      }
      guard let threshold = number(thresholdNode, "\(path).threshold", in: -1e12...1e12) else {
        continue
      }
      let forTicks =
        rule["for_ticks"].flatMap { integer($0, "\(path).for_ticks", in: 1...10_000) }
        ?? AlertRule.defaultForTicks
      let keepFiringForTicks = rule["keep_firing_for_ticks"].flatMap {
        integer($0, "\(path).keep_firing_for_ticks", in: 1...10_000)
      }
      var clearThreshold: Double?
      if let node = rule["clear_threshold"] {
        guard let value = number(node, "\(path).clear_threshold", in: -1e12...1e12) else {
          continue
        }
        // Well clear must be on the clear side of the threshold, or nothing would ever be.
        guard comparison != .equal, !comparison.holds(value, threshold) else {
          issue(
            node, "\(path).clear_threshold",
            comparison == .equal
              ? "not for op =="
              : "\(value) meets the rule itself (\(opText) \(threshold))"
                + "; it must be on the clear side")
          continue
        }
        clearThreshold = value
      }
      rules.append(
        AlertRule(
          name: name, metric: metric, comparison: comparison, threshold: threshold,
          forTicks: forTicks, keepFiringForTicks: keepFiringForTicks,
          clearThreshold: clearThreshold, severity: severity))
    }
    return rules
  }
}
