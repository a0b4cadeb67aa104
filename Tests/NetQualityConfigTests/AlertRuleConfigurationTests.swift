import NetQualityConfig
import NetQualityCore
import XCTest

/// Alert rules as the configuration writes them: `for_ticks`, `keep_firing_for_ticks` and
/// `clear_threshold`, their defaults, and one line per mistake.
final class AlertRuleConfigurationTests: XCTestCase, ConfigurationFixtures {
  func testTheDurationsAndTheClearThresholdAreReadWithTheirDefaults() throws {
    let configuration = try load(
      """
      alerts:
        builtin: false
        rules:
          - {name: loss, metric: rx_loss_ratio, op: ">", threshold: 0.05, clear_threshold: 0.02}
          - {name: slow, metric: rtt_ms, threshold: 300, for_ticks: 5, keep_firing_for_ticks: 10}
          - {name: poor, metric: tx_quality, op: ">=", threshold: 3}
      """)
    let rules = configuration.engine.alertRules
    XCTAssertEqual(rules.map(\.forTicks), [AlertRule.defaultForTicks, 5, 3])
    XCTAssertEqual(rules.map(\.keepFiringForTicks), [30, 10, 1], "figures 30, levels 1")
    XCTAssertEqual(rules.map(\.clearThreshold), [0.02, nil, nil])
  }

  func testAClearThresholdOnTheWrongSideIsOneLine() {
    XCTAssertEqual(
      issues(
        """
        alerts:
          rules:
            - {name: loss, metric: rx_loss_ratio, op: ">", threshold: 0.05, clear_threshold: 0.1}
            - {name: up, metric: state, op: "==", threshold: 1, clear_threshold: 2}
            - {name: x, metric: rtt_ms, threshold: 1, keep_firing_for_ticks: 0}
        """),
      [
        "3 alerts.rules[0].clear_threshold: 0.1 meets the rule itself (> 0.05); it must be on "
          + "the clear side",
        "4 alerts.rules[1].clear_threshold: not for op ==",
        "5 alerts.rules[2].keep_firing_for_ticks: 0 is out of range 1...10000",
      ])
  }

  func testARuleNameIsUniqueBecauseItIsTheAlertsIdentity() throws {
    XCTAssertEqual(
      issues(
        """
        alerts:
          rules:
            - {name: loss, metric: rx_loss_ratio, threshold: 0.05}
            - {name: loss, metric: rx_loss_ratio, threshold: 0.15, severity: critical}
            - {name: peer_disconnected, metric: state, op: ">=", threshold: 4}
        """),
      [
        "4 alerts.rules[1].name: 'loss' is already the name of an earlier rule; names must be "
          + "unique",
        "5 alerts.rules[2].name: 'peer_disconnected' is a built-in rule's name "
          + "(alerts.builtin: false replaces the built-ins); names must be unique",
      ])
    // Without the built-ins, their names are free.
    let replaced = try load(
      """
      alerts:
        builtin: false
        rules:
          - {name: peer_disconnected, metric: state, op: ">=", threshold: 4}
      """)
    XCTAssertEqual(replaced.engine.alertRules.map(\.name), ["peer_disconnected"])
  }

  func testTheRunbookIsAnAbsoluteURLWithoutAFragment() throws {
    XCTAssertEqual(try load("").alertRunbookURL, AgentConfiguration.defaultRunbookURL)
    let url = "https://wiki.example.net/netquality/runbook"
    let configuration = try load("alerts:\n  runbook_url: \"\(url)\"\n")
    XCTAssertEqual(configuration.alertRunbookURL, url)
    XCTAssertEqual(
      ConfigurationKeys.changed(from: AgentConfiguration(), to: configuration).map(\.name),
      ["alerts"], "applied by a reload")
    // An unknown key of the section is one line, however many of its keys are read.
    XCTAssertEqual(
      issues("alerts:\n  runbook: x\n"),
      ["2 alerts.runbook: unknown key; known keys here: builtin, rules, runbook_url"])
    // Empty is the default: the agent's own page.
    XCTAssertEqual(try load("alerts:\n  runbook_url: \"\"\n").alertRunbookURL, "")
    for bad in ["docs/runbook.md", "https://wiki.example.net/runbook#top", "wiki page"] {
      let found = issues("alerts:\n  runbook_url: \"\(bad)\"\n")
      XCTAssertEqual(found.count, 1, bad)
      XCTAssertTrue(
        found.first?.hasPrefix("2 alerts.runbook_url: '\(bad)': expected an absolute URL") ?? false,
        "\(found)")
    }
  }
}
