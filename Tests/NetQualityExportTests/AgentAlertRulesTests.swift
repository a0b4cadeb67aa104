import Foundation
import NetQualityCore
import XCTest
import Yams

@testable import NetQualityExport

/// The rules forwarding the agent's alerts through Prometheus: one per alert name, under that
/// name, adding no label but the series' own, so that Alertmanager takes the forwarded alert
/// and the one the agent pushes for one alert; the shipped file is the output for the built-in
/// rules.
final class AgentAlertRulesTests: XCTestCase {
  static let base = "https://git.example.net/nq/docs/runbook.md"

  static func rules(_ yaml: String) throws -> [[String: Any]] {
    let document = try XCTUnwrap(try Yams.load(yaml: yaml) as? [String: Any])
    let groups = try XCTUnwrap(document["groups"] as? [[String: Any]])
    XCTAssertEqual(groups.map { $0["name"] as? String }, ["netquality-agent-alerts"])
    return try XCTUnwrap(groups.first?["rules"] as? [[String: Any]])
  }

  func testTheShippedFileIsTheOutputForTheBuiltInRules() throws {
    let shipped = try OperatorsKit.text("config/rules/netquality-agent-alerts.yml")
    let generated = AgentAlertRules.yaml(
      rules: AlertRule.builtIn, tickIntervalSeconds: 2,
      runbookURL: AgentAlertRules.defaultRunbookURL)
    XCTAssertEqual(
      shipped, generated,
      "regenerate it: netquality check-config config/netquality.yaml --prometheus-rules")
  }

  func testEachAlertIsForwardedUnderItsOwnNameWithTheSeriesLabels() throws {
    let rules = try Self.rules(
      AgentAlertRules.yaml(
        rules: AlertRule.builtIn, tickIntervalSeconds: 2, runbookURL: Self.base))
    XCTAssertEqual(
      rules.compactMap { $0["alert"] as? String },
      [
        "peer_rx_quality_bad", "peer_tx_quality_bad", "peer_disconnected", "peer_timeout",
        "video_freezes", "storage_failing", "NetQualityAlertsBeyondPeerSeries",
      ])
    for rule in rules.dropLast() {
      let name = try XCTUnwrap(rule["alert"] as? String)
      XCTAssertEqual(
        rule["expr"] as? String, #"netquality_alerts_firing{alertname="\#(name)"} == 1"#)
      XCTAssertEqual(rule["for"] as? String, "0s", "the agent already waited: \(name)")
      // Prometheus makes alertname the rule's own name, the same as the series'; the only
      // label the rule sets is the series' severity again: nothing Alertmanager would see
      // differ from the pushed alert.
      XCTAssertEqual(rule["labels"] as? [String: String], ["severity": "{{ $labels.severity }}"])
      let annotations = try XCTUnwrap(rule["annotations"] as? [String: String])
      XCTAssertEqual(annotations["runbook_url"], "\(Self.base)#\(name)")
      XCTAssertEqual(Set(annotations.keys), ["summary", "description", "runbook_url"])
    }
    let beyond = try XCTUnwrap(rules.last)
    XCTAssertEqual(
      beyond["labels"] as? [String: String],
      ["severity": "{{ $labels.severity }}", "rule": "{{ $labels.alertname }}"],
      "two rules of one severity beyond the budget are two alerts")
  }

  func testConfiguredRulesOnceEachNamesOfAnyKindAndTheirRunbookSection() throws {
    let odd = "loss \"it's\"\n{{ x }}\\"
    let configured = [
      AlertRule(
        name: "high_loss", metric: .rxLossRatio, comparison: .greater, threshold: 0.05,
        forTicks: 3, clearThreshold: 0.02, severity: .warning),
      AlertRule(
        name: "high_loss", metric: .txLossRatio, comparison: .greater, threshold: 0.1,
        forTicks: 5, severity: .critical),
      AlertRule(
        name: odd, metric: .roundTripMilliseconds, comparison: .greaterOrEqual, threshold: 300,
        forTicks: 2, severity: .info),
    ]
    let yaml = AgentAlertRules.yaml(
      rules: AlertRule.builtIn + configured, tickIntervalSeconds: 1, runbookURL: Self.base)
    let rules = try Self.rules(yaml)
    let names = rules.compactMap { $0["alert"] as? String }
    XCTAssertEqual(names.filter { $0 == "high_loss" }.count, 1)
    XCTAssertTrue(names.contains(odd), "\(names)")
    let highLoss = try XCTUnwrap(rules.first { $0["alert"] as? String == "high_loss" })
    let annotations = try XCTUnwrap(highLoss["annotations"] as? [String: String])
    XCTAssertEqual(annotations["runbook_url"], "\(Self.base)#configured-rules")
    XCTAssertEqual(
      annotations["description"],
      "Rule {{ $labels.alertname }} of the agent on {{ $labels.instance }}: rx_loss_ratio > 0.05 "
        + "for 3 ticks (3 s), {{ $labels.severity }}; holds for peer {{ $labels.peer }}.")
    XCTAssertEqual(
      annotations["summary"],
      "{{ $labels.alertname }} for {{ $labels.peer }} (rx) on {{ $labels.instance }}")
    let oddRule = try XCTUnwrap(rules.first { $0["alert"] as? String == odd })
    XCTAssertEqual(
      oddRule["expr"] as? String,
      #"netquality_alerts_firing{alertname="loss \"it's\"\n{{ x }}\\"} == 1"#)
    // The name never reaches a template: the annotations quote the series' alertname label.
    let oddAnnotations = try XCTUnwrap(oddRule["annotations"] as? [String: String])
    XCTAssertFalse(oddAnnotations.values.contains { $0.contains("{{ x }}") })
  }

  func testConditionsAndRunbookSections() {
    let rule = AlertRule.builtIn[0]
    XCTAssertEqual(
      AgentAlertRules.condition(rule, tickIntervalSeconds: 2),
      "rx_quality >= 4 (bad) for 3 ticks (6 s)")
    XCTAssertEqual(
      AgentAlertRules.runbookURL(for: "storage_failing", base: "file:///r.md"),
      "file:///r.md#storage_failing")
    XCTAssertEqual(
      AgentAlertRules.runbookURL(for: "jitter_high", base: "file:///r.md"),
      "file:///r.md#configured-rules")
  }
}
