import NetQualityCore
import Yams

/// Alert rules (docs/quality-model.md, "Alerts"), the runbook their alerts link to, and where
/// alerts are pushed. The rules and the runbook apply at the next tick of a reload (removed or
/// changed rules resolve their alerts); the Alertmanager notifier is started once, with the
/// agent.
enum AlertKeys {
  static let all: [ConfigurationKey] = [
    .value("alerts", \.alerts, .live) { walker, node, _ in walker.alerts(node) }
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
  /// The `alerts:` section: the rules and the runbook, its keys read once (an unknown key is
  /// one issue).
  mutating func alerts(_ node: Node) -> AgentConfiguration.Alerts? {
    let fields = entries(node, "alerts", known: ["builtin", "rules", "runbook_url"])
    var alerts = AgentConfiguration.Alerts(rules: alertRules(fields))
    if let node = fields["runbook_url"] {
      guard let url = runbookURL(node) else { return nil }
      alerts.runbookURL = url
    }
    return alerts
  }

  /// `alerts.runbook_url`: an absolute URL (the alerts' `runbook_url` is it and a section's
  /// `#anchor`, so it has no fragment of its own), or empty for the agent's own page.
  mutating func runbookURL(_ node: Node) -> String? {
    guard let text = string(node, "alerts.runbook_url") else { return nil }
    guard text.isEmpty || (AgentConfiguration.isAbsoluteURL(text) && !text.contains("#")) else {
      issue(
        node, "alerts.runbook_url",
        "'\(text)': expected an absolute URL without a #fragment, e.g. "
          + "https://git.example.net/netquality/blob/main/docs/runbook.md, or empty for the "
          + "agent's own page (/runbook)")
      return nil
    }
    return text
  }

  mutating func alertRules(_ fields: [String: Node]) -> [AlertRule] {
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
      // A rule's name is its alerts' identity (the engine tracks an alert per rule and peer,
      // Alertmanager groups by alertname): two rules of one name would share one alert.
      if let taken = rules.first(where: { $0.name == name }) {
        let which =
          AlertRule.builtIn.contains(taken)
          ? "a built-in rule's name (alerts.builtin: false replaces the built-ins)"
          : "already the name of an earlier rule"
        issue(rule["name"], "\(path).name", "'\(name)' is \(which); names must be unique")
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
