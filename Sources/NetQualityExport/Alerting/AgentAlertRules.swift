import NetQualityCore

/// The Prometheus alerting rules that forward the agent's own alerts under the agent's alert
/// names (`netquality check-config FILE --prometheus-rules`; config/rules/netquality-agent-alerts.yml
/// is the output for the built-in rules). One rule per alert name: `netquality_alerts_firing`
/// of that name as alert NAME, with the series' labels, which are the labels the agent pushes
/// to Alertmanager itself (`AlertmanagerPayload`): the same alert for Alertmanager either way.
public enum AgentAlertRules {
  /// The agent's own alert, raised by the history's writer rather than by a peer rule.
  public static let storageFailing = "storage_failing"

  /// Where the runbook is unless `alerts.runbook_url` says otherwise: each agent's own page
  /// (`GET /runbook`, docs/runbook.md built into the binary), at the address Prometheus scrapes
  /// it by, which in a rule Prometheus evaluates is the alert's `instance` label; an agent
  /// pushing its alerts writes its own address (`agentRunbookURL`). `RUNBOOK_URL=... make
  /// install` writes another into the installed rules and configuration.
  public static let defaultRunbookURL = "http://{{ $labels.instance }}/runbook"

  /// The runbook of an agent reached at `scheme://instance`: its own page.
  public static func agentRunbookURL(scheme: String, instance: String) -> String {
    "\(scheme)://\(instance)/runbook"
  }

  /// The runbook in the rules Prometheus evaluates for a configuration: `configured`
  /// (`alerts.runbook_url`), or when empty each agent's own page, by its `instance` label.
  public static func rulesRunbookURL(configured: String, scheme: String) -> String {
    configured.isEmpty
      ? agentRunbookURL(scheme: scheme, instance: "{{ $labels.instance }}") : configured
  }

  /// The runbook's section for the rules of a configuration (docs/runbook.md).
  static let configuredRulesSection = "configured-rules"

  /// Alerts with a section of their own in docs/runbook.md, headed by the alert's name.
  static var documented: Set<String> {
    Set(AlertRule.builtIn.map(\.name) + [storageFailing])
  }

  /// The runbook section of an agent alert: its own for the built-in alerts, the section on
  /// configured rules for the others.
  public static func runbookURL(for alertname: String, base: String) -> String {
    let section = documented.contains(alertname) ? alertname : configuredRulesSection
    return "\(base)#\(section)"
  }

  /// What a rule checks and for how long: "rx_quality >= 4 (bad) for 3 ticks (6 s)".
  public static func condition(_ rule: AlertRule, tickIntervalSeconds: Double) -> String {
    let ticks = rule.forTicks == 1 ? "1 tick" : "\(rule.forTicks) ticks"
    let seconds = MetricsWriter.number(
      (Double(rule.forTicks) * tickIntervalSeconds * 10).rounded() / 10)
    return "\(rule.metric.rawValue) \(rule.comparison.rawValue) "
      + "\(MetricsWriter.number(rule.threshold))\(meaning(of: rule)) for \(ticks) (\(seconds) s)"
  }

  /// What a threshold on a state or a level stands for: " (disconnected)", " (bad)".
  static func meaning(of rule: AlertRule) -> String {
    guard rule.threshold == rule.threshold.rounded(), abs(rule.threshold) < 1000 else { return "" }
    let number = Int(rule.threshold)
    switch rule.metric {
    case .connectionState:
      let states = ConnectionState.allCases
      return states.indices.contains(number) ? " (\(states[number].rawValue))" : ""
    case .rxQuality, .txQuality:
      return QualityLevel(rawValue: number).map { " (\($0.name))" } ?? ""
    default:
      return ""
    }
  }

  /// The rules file: a group with one forwarding rule per alert name of `rules` (the first
  /// rule of a name describes it) and of the agent's own alerts, then
  /// NetQualityAlertsBeyondPeerSeries. Prometheus adds no wait (`for: 0s`): the agent already
  /// applied its rule's for_ticks and keep_firing_for_ticks.
  public static func yaml(
    rules: [AlertRule], tickIntervalSeconds: Double, runbookURL: String
  ) -> String {
    var lines = header
    var seen = Set<String>()
    for rule in rules where seen.insert(rule.name).inserted {
      // A rule on calls holds for the host (the SIP calls ended over calls.failure_window),
      // its alert has no peer.
      var subject = rule.metric.isAboutCalls ? "" : " for {{ $labels.peer }}"
      if let direction = rule.metric.direction { subject += " (\(direction))" }
      let holds =
        rule.metric.isAboutCalls
        ? "of the SIP calls ended over calls.failure_window" : "holds for peer {{ $labels.peer }}"
      lines += forwarding(
        rule.name,
        summary: "{{ $labels.alertname }}\(subject) on {{ $labels.instance }}",
        description: "Rule {{ $labels.alertname }} of the agent on {{ $labels.instance }}: "
          + "\(condition(rule, tickIntervalSeconds: tickIntervalSeconds)), "
          + "{{ $labels.severity }}; \(holds).",
        runbookURL: Self.runbookURL(for: rule.name, base: runbookURL))
    }
    if !seen.contains(storageFailing) {
      lines += forwarding(
        storageFailing,
        summary: "{{ $labels.alertname }} ({{ $labels.kind }}) on {{ $labels.instance }}",
        description: "The agent on {{ $labels.instance }} cannot write its history "
          + "({{ $labels.kind }}); capture, scoring and alerts go on.",
        runbookURL: Self.runbookURL(for: storageFailing, base: runbookURL))
    }
    lines += beyondPeerSeries(runbookURL: "\(runbookURL)#netqualityalertsbeyondpeerseries")
    return lines.joined(separator: "\n") + "\n"
  }

  static let header = [
    "# The agent's own alerts, forwarded by Prometheus under the agent's alert names. Written by",
    "# `netquality check-config FILE --prometheus-rules`, one rule per alert the configuration",
    "# can raise; config/rules/netquality-agent-alerts.yml is its output for the built-in rules:",
    "# run it on a configuration with alerts.rules of its own to forward those too.",
    "#",
    "# Each rule forwards netquality_alerts_firing{alertname=\"NAME\"} as alert NAME with the",
    "# series' labels (job, instance and the target's labels; peer, direction or kind; severity):",
    "# the labels the agent pushes to Alertmanager itself (alertmanager: in its configuration),",
    "# so that Alertmanager takes the pushed and the forwarded alert for one (docs/alertmanager.md).",
    "# The agent decides (its thresholds, for_ticks, keep_firing_for_ticks); Prometheus adds no",
    "# wait of its own. Check: promtool check rules; tests: config/rules/tests/.",
    "groups:",
    "  - name: netquality-agent-alerts",
    "    rules:",
  ]

  static func forwarding(
    _ name: String, summary: String, description: String, runbookURL: String
  ) -> [String] {
    [
      "      - alert: \(yamlName(name))",
      "        expr: \(yamlString("netquality_alerts_firing{alertname=\(promQLString(name))} == 1"))",
      "        for: 0s",
      "        labels:",
      "          severity: '{{ $labels.severity }}'",
      "        annotations:",
      "          summary: \(yamlString(summary))",
      "          description: \(yamlString(description))",
      "          runbook_url: \(yamlString(runbookURL))",
    ]
  }

  /// Alerts of peers without series of their own (beyond metrics.max_peer_series), which the
  /// rules above cannot forward one by one: counted per rule and compared with the series.
  static func beyondPeerSeries(runbookURL: String) -> [String] {
    [
      "      # Peers beyond metrics.max_peer_series have no per-peer series, so their alerts are only",
      "      # counted in netquality_alerts_by_rule: more firing than shown per peer means that many",
      "      # more peers are affected. The agent's rule decided; Prometheus only compares two counts.",
      "      # `rule` names the agent's rule (this alert's own name replaces alertname).",
      "      - alert: NetQualityAlertsBeyondPeerSeries",
      "        expr: |",
      "          netquality_alerts_by_rule",
      "            - on (job, instance, alertname) group_left ()",
      "              (",
      "                count by (job, instance, alertname) (netquality_alerts_firing)",
      "                or",
      "                sum by (job, instance, alertname) (netquality_alerts_by_rule) * 0",
      "              )",
      "            > 0",
      "        for: 1m",
      "        labels:",
      "          severity: '{{ $labels.severity }}'",
      "          rule: '{{ $labels.alertname }}'",
      "        annotations:",
      "          summary: '{{ $value }} more peers with {{ $labels.alertname }} on {{ $labels.instance }} than have series'",
      "          description: >-",
      "            {{ $value }} peers of {{ $labels.instance }} have {{ $labels.alertname }} firing",
      "            without series of their own (beyond metrics.max_peer_series, the worst peers first):",
      "            a wide incident. The full list is in the agent's /api/v1/alerts.",
      "          runbook_url: \(yamlString(runbookURL))",
    ]
  }

  /// An alert name as YAML: bare when it is a plain identifier, quoted otherwise.
  static func yamlName(_ name: String) -> String {
    let plain =
      name.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } ?? false
      && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    return plain ? name : yamlString(name)
  }

  /// A YAML scalar for any text: single-quoted (a quote doubled) when every character is
  /// printable, else double-quoted with escapes (YAML 1.2 sections 7.3.1 and 7.3.2), so any rule
  /// name stays one line and reads back as it was.
  static func yamlString(_ text: String) -> String {
    func printable(_ scalar: Unicode.Scalar) -> Bool {
      scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value)
    }
    if text.unicodeScalars.allSatisfy(printable) {
      return "'"
        + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case _ where !printable(scalar):
        out += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// A PromQL string literal (double-quoted, Go's escapes): backslash and quote escaped,
  /// control characters as \xNN.
  static func promQLString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        out += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
