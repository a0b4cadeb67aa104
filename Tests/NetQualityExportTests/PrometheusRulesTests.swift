import Foundation
import NetQualityExport
import XCTest
import Yams

/// The Prometheus rules of config/rules/: every metric and label they use exists, every alert
/// has what Alertmanager and the on-call need, a runbook section and promtool tests.
final class PrometheusRulesTests: XCTestCase {
  /// The recording rules' names with the labels their results carry beyond the source's
  /// (`quantile`).
  static func recordingRules() throws -> [String: Set<String>] {
    var recorded: [String: Set<String>] = [:]
    for (_, rule) in try OperatorsKit.rules() {
      guard let name = rule["record"] as? String else { continue }
      let labels = (rule["labels"] as? [String: Any]).map { Set($0.keys) } ?? []
      recorded[name, default: []].formUnion(labels)
    }
    return recorded
  }

  /// A selector names a catalogue family's series with the family's labels (and the target
  /// labels Prometheus adds), or a recording rule. Names without the prefix or a colon (`up`,
  /// `scrape_duration_seconds`, label names of `by (...)`) are Prometheus's own.
  static func checkSelector(
    _ selector: OperatorsKit.Selector, recorded: [String: Set<String>], context: String
  ) throws {
    let targetLabels = ["job", "instance"]
    if selector.name.contains(":") {
      let extra = try XCTUnwrap(
        recorded[selector.name], "\(context): no recording rule \(selector.name)")
      // level:metric:operations, the level naming the labels the result keeps
      // (https://prometheus.io/docs/practices/rules/), plus the rule's own (quantile).
      let parts = selector.name.split(separator: ":")
      XCTAssertEqual(parts.count, 3, "\(context): \(selector.name) is not level:metric:operation")
      let level = parts.first.map { $0.split(separator: "_").map(String.init) } ?? []
      let allowed = Set(targetLabels + level + extra)
      XCTAssertEqual(
        Set(selector.labels).subtracting(allowed), [], "\(context): labels of \(selector.name)")
      return
    }
    guard selector.name.hasPrefix("netquality_") else { return }
    let family = try XCTUnwrap(
      MetricCatalogue.family(ofSeries: selector.name), "\(context): \(selector.name) does not exist"
    )
    let allowed = Set(
      targetLabels + family.labels + (selector.name.hasSuffix("_bucket") ? ["le"] : []))
    XCTAssertEqual(
      Set(selector.labels).subtracting(allowed), [], "\(context): labels of \(selector.name)")
  }

  func testEveryMetricAndLabelOfTheRulesExists() throws {
    let recorded = try Self.recordingRules()
    var checked = 0
    for (path, rule) in try OperatorsKit.rules() {
      let expression = try XCTUnwrap(rule["expr"] as? String, "\(path): a rule without expr")
      for selector in try OperatorsKit.selectors(expression) {
        try Self.checkSelector(selector, recorded: recorded, context: "\(path): \(expression)")
        if selector.name.hasPrefix("netquality_") || selector.name.contains(":") { checked += 1 }
      }
    }
    XCTAssertGreaterThan(checked, 20, "the rules' selectors were not found")
  }

  func testRecordingRulesAreNamedLevelMetricOperations() throws {
    let names = try Self.recordingRules().keys
    XCTAssertFalse(names.isEmpty)
    for name in names {
      XCTAssertNotNil(
        name.wholeMatch(of: #/[a-z_]+:netquality_[a-z0-9_]+:[a-z0-9_]+/#), "\(name)")
    }
  }

  func testEveryAlertHasSeverityAnnotationsAndARunbookSection() throws {
    let runbook = try OperatorsKit.text("docs/runbook.md")
    // GitHub's anchors: a heading in lower case, spaces as hyphens, punctuation dropped.
    let anchors = Set(
      try OperatorsKit.matches(#"(?m)^#{2,3} (.+)$"#, runbook).compactMap { $0[1] }.map {
        String(
          $0.lowercased().replacing(" ", with: "-").filter {
            $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_"
          })
      })
    let alerts = try OperatorsKit.rules().filter { $0.rule["alert"] != nil }
    XCTAssertGreaterThanOrEqual(alerts.count, 10)
    for (path, rule) in alerts {
      let name = rule["alert"] as? String ?? "?"
      let context = "\(path): \(name)"
      XCTAssertNotNil(rule["for"] as? String, "\(context): no for:")
      let labels = rule["labels"] as? [String: Any] ?? [:]
      let severity = try XCTUnwrap(labels["severity"] as? String, "\(context): no severity")
      XCTAssertTrue(
        ["critical", "warning", "{{ $labels.severity }}"].contains(severity),
        "\(context): \(severity)")
      let annotations = rule["annotations"] as? [String: Any] ?? [:]
      for key in ["summary", "description", "runbook_url"] {
        XCTAssertFalse((annotations[key] as? String ?? "").isEmpty, "\(context): no \(key)")
      }
      // The agent's own page, at the alert's instance, so that a link in a notification opens
      // wherever the agent is reached; an absent agent has none: Prometheus' targets, and the
      // section named in the description.
      let url = annotations["runbook_url"] as? String ?? ""
      if name == "NetQualityAgentAbsent" {
        XCTAssertEqual(url, "{{ $externalURL }}/targets", context)
        XCTAssertTrue(
          (annotations["description"] as? String ?? "").contains(
            "/runbook#\(name.lowercased())"), context)
      } else {
        XCTAssertEqual(url, "\(AgentAlertRules.defaultRunbookURL)#\(name.lowercased())", context)
      }
      XCTAssertTrue(
        anchors.contains(name.lowercased()), "\(context): no section in docs/runbook.md")
    }
  }

  /// config/rules/tests/ covers every alert: quiet at a time before it fires, firing, and
  /// quiet again at a later time (resolved).
  func testEveryAlertHasPromtoolTestsThatFireAndResolve() throws {
    let alerts = Set(try OperatorsKit.rules().compactMap { $0.rule["alert"] as? String })
    // Per alert and test case: (eval time in seconds, firing) of each check.
    var checks: [String: [[(seconds: Double, firing: Bool)]]] = [:]
    for path in try OperatorsKit.files(in: "config/rules/tests", suffix: ".yml") {
      let document = try XCTUnwrap(
        try Yams.load(yaml: try OperatorsKit.text(path)) as? [String: Any])
      for test in document["tests"] as? [[String: Any]] ?? [] {
        var byAlert: [String: [(seconds: Double, firing: Bool)]] = [:]
        for check in test["alert_rule_test"] as? [[String: Any]] ?? [] {
          guard let name = check["alertname"] as? String,
            let time = check["eval_time"] as? String
          else { continue }
          let seconds = try XCTUnwrap(Self.seconds(time), "\(path): eval_time \(time)")
          let firing = !((check["exp_alerts"] as? [Any])?.isEmpty ?? true)
          byAlert[name, default: []].append((seconds, firing))
        }
        for (name, list) in byAlert { checks[name, default: []].append(list) }
      }
    }
    for alert in alerts.sorted() {
      let cases = checks[alert] ?? []
      let covered = cases.contains { list in
        let sorted = list.sorted { $0.seconds < $1.seconds }
        guard let first = sorted.firstIndex(where: \.firing),
          let last = sorted.lastIndex(where: \.firing)
        else { return false }
        return sorted[..<first].contains { !$0.firing }
          && sorted[(last + 1)...].contains { !$0.firing }
      }
      XCTAssertTrue(covered, "\(alert): no promtool test with it quiet, then firing, then resolved")
    }
  }

  /// A Prometheus duration of promtool's eval_time: `1m45s`, `25s`, `10m`.
  static func seconds(_ duration: String) -> Double? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
    var total = 0.0
    var number = ""
    for character in duration {
      if character.isNumber {
        number.append(character)
      } else if let unit = units[character], let value = Double(number) {
        total += value * unit
        number = ""
      } else {
        return nil
      }
    }
    return number.isEmpty ? total : nil
  }
}
