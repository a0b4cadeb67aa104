import Foundation
import NetQualityCore
import XCTest

@testable import NetQualityExport

/// The body of `POST /api/v2/alerts` (Alertmanager's `postableAlerts`): labels, annotations,
/// RFC 3339 times, firing and resolved.
final class AlertmanagerPayloadTests: XCTestCase {
  let start = CaptureTime(nanosecondsSinceEpoch: 1_790_000_000_000_000_000)

  var context: AlertmanagerPayload.Context {
    AlertmanagerPayload.Context(
      labels: ["instance": "media-7:9470", "job": "netquality", "site": "fra1"],
      generatorURL: "http://media-7:9470/api/v1/alerts", rules: AlertRule.builtIn,
      tickIntervalSeconds: 2, runbookURL: "https://git.example.net/nq/docs/runbook.md")
  }

  func disconnected(state: Alert.State = .firing) -> Alert {
    Alert(
      id: "peer_disconnected:10.202.0.1:1790000000000", rule: "peer_disconnected",
      severity: .critical, labels: ["peer": "10.202.0.1"], state: state, start: start,
      summary: "peer 10.202.0.1 disconnected since 2026-09-21T14:13:20.000Z")
  }

  /// The body parsed back as JSON objects.
  func decoded(_ body: String) throws -> [[String: Any]] {
    let value = try JSONSerialization.jsonObject(with: Data(body.utf8))
    return try XCTUnwrap(value as? [[String: Any]])
  }

  func testAFiringAlertCarriesItsLabelsAnnotationsAndAnEndAhead() throws {
    let endsAt = start.advanced(bySeconds: 240)
    let notification = AlertmanagerPayload.notification(
      disconnected(), endsAt: endsAt, context: context)
    XCTAssertEqual(notification.key, "peer_disconnected:10.202.0.1:1790000000000")
    let body = AlertmanagerPayload.body([notification])
    XCTAssertEqual(
      body,
      #"[{"labels":{"alertname":"peer_disconnected","instance":"media-7:9470","job":"netquality","#
        + #""peer":"10.202.0.1","severity":"critical","site":"fra1"},"annotations":{"#
        + #""description":"Rule peer_disconnected: state == 3 (disconnected) for 1 tick (2 s), critical, holds "#
        + #"for peer 10.202.0.1 since 2026-09-21T14:13:20.000Z.","#
        + #""runbook_url":"https://git.example.net/nq/docs/runbook.md#peer_disconnected","#
        + #""summary":"peer 10.202.0.1 disconnected since 2026-09-21T14:13:20.000Z"},"#
        + #""startsAt":"2026-09-21T14:13:20.000Z","endsAt":"2026-09-21T14:17:20.000Z","#
        + #""generatorURL":"http://media-7:9470/api/v1/alerts"}]"#)
    XCTAssertFalse(notification.isResolved(at: start.advanced(bySeconds: 239)))
    XCTAssertTrue(notification.isResolved(at: endsAt))
  }

  func testAResolvedAlertEndsAtItsResolution() throws {
    var alert = disconnected(state: .resolved)
    alert.end = start.advanced(bySeconds: 8)
    let notification = AlertmanagerPayload.notification(
      alert, endsAt: try XCTUnwrap(alert.end), context: context)
    let object = try XCTUnwrap(try decoded(AlertmanagerPayload.body([notification])).first)
    XCTAssertEqual(object["startsAt"] as? String, "2026-09-21T14:13:20.000Z")
    XCTAssertEqual(object["endsAt"] as? String, "2026-09-21T14:13:28.000Z")
    XCTAssertEqual((object["labels"] as? [String: String])?["alertname"], "peer_disconnected")
    XCTAssertTrue(notification.isResolved(at: start.advanced(bySeconds: 8)))
  }

  func testAnEndBeforeTheStartIsRaisedToTheStart() {
    // Alertmanager refuses "start time must be before end time"; equal is accepted.
    let notification = AlertmanagerPayload.notification(
      disconnected(), endsAt: start.advanced(bySeconds: -5), context: context)
    XCTAssertEqual(notification.endsAt, start)
  }

  func testTheAlertsOwnLabelsWinAndADirectionIsDescribed() throws {
    var extra = context
    extra.labels["peer"] = "configured"
    let alert = Alert(
      id: "peer_rx_quality_bad:sfu:1", rule: "peer_rx_quality_bad", severity: .warning,
      labels: ["peer": "sfu", "direction": "rx"], state: .firing, start: start,
      summary: "peer sfu rx quality bad over 3 ticks")
    let notification = AlertmanagerPayload.notification(alert, endsAt: start, context: extra)
    XCTAssertEqual(notification.labels["peer"], "sfu")
    XCTAssertEqual(notification.labels["direction"], "rx")
    XCTAssertEqual(notification.labels["severity"], "warning")
    XCTAssertEqual(
      notification.annotations["description"],
      "Rule peer_rx_quality_bad: rx_quality >= 4 (bad) for 3 ticks (6 s), warning, holds for peer sfu "
        + "(rx) since 2026-09-21T14:13:20.000Z.")
  }

  func testTheAgentsOwnAlertsAreDescribedAsSuch() {
    let alert = Alert(
      id: "storage_failing", rule: "storage_failing", severity: .critical,
      labels: ["kind": "disk_full"], state: .firing, start: start,
      summary: "history /var/lib/netquality/history.db cannot be written: disk full")
    let notification = AlertmanagerPayload.notification(alert, endsAt: start, context: context)
    XCTAssertEqual(notification.labels["kind"], "disk_full")
    XCTAssertEqual(notification.labels["alertname"], "storage_failing")
    XCTAssertEqual(
      notification.annotations["description"],
      "history /var/lib/netquality/history.db cannot be written: disk full (since "
        + "2026-09-21T14:13:20.000Z); raised by the agent itself, not by a peer rule.")
    XCTAssertEqual(
      notification.annotations["runbook_url"],
      "https://git.example.net/nq/docs/runbook.md#storage_failing")
  }

  /// A rule of the configuration has no section of its own: the runbook's section on them.
  func testAConfiguredRulesRunbookIsTheSectionOnConfiguredRules() {
    var configured = context
    configured.rules.append(
      AlertRule(
        name: "high_loss", metric: .rxLossRatio, comparison: .greater, threshold: 0.05,
        forTicks: 3, clearThreshold: 0.02, severity: .warning))
    let alert = Alert(
      id: "high_loss:sfu:1", rule: "high_loss", severity: .warning,
      labels: ["peer": "sfu", "direction": "rx"], state: .firing, start: start,
      summary: "peer sfu rx_loss_ratio 0.12")
    let notification = AlertmanagerPayload.notification(alert, endsAt: start, context: configured)
    XCTAssertEqual(
      notification.annotations["runbook_url"],
      "https://git.example.net/nq/docs/runbook.md#configured-rules")
    XCTAssertEqual(
      notification.annotations["description"],
      "Rule high_loss: rx_loss_ratio > 0.05 for 3 ticks (6 s), warning, holds for peer sfu (rx) "
        + "since 2026-09-21T14:13:20.000Z.")
  }

  func testStringsAreEscaped() throws {
    var alert = disconnected()
    alert.summary = "a \"quoted\"\nline\\"
    let body = AlertmanagerPayload.body([
      AlertmanagerPayload.notification(alert, endsAt: start, context: context)
    ])
    let object = try XCTUnwrap(try decoded(body).first)
    XCTAssertEqual(
      (object["annotations"] as? [String: String])?["summary"], "a \"quoted\"\nline\\")
  }

  func testTheNotifierMetrics() {
    var histogram = DelayHistogram(boundsSeconds: [0.01, 0.1])
    histogram.add(0.004)
    histogram.add(0.05)
    let collector = AlertmanagerCollector(
      targets: [
        .init(
          url: "http://127.0.0.1:9093", sent: 12, failed: 3, up: true, requestSeconds: histogram),
        .init(
          url: "http://127.0.0.1:9094", sent: 0, failed: 0, up: nil,
          requestSeconds: DelayHistogram(boundsSeconds: [0.01, 0.1])),
      ],
      queueLength: 4, queueCapacity: 100, droppedQueueFull: 7, droppedRejected: 1,
      activeAlerts: 2)
    let text = PrometheusExposition.render([collector])
    for line in [
      #"netquality_alertmanager_notifications_sent_total{alertmanager="http://127.0.0.1:9093"} 12"#,
      #"netquality_alertmanager_notifications_failed_total{alertmanager="http://127.0.0.1:9093"} 3"#,
      #"netquality_alertmanager_notifications_sent_total{alertmanager="http://127.0.0.1:9094"} 0"#,
      #"netquality_alertmanager_notifications_dropped_total{reason="queue_full"} 7"#,
      #"netquality_alertmanager_notifications_dropped_total{reason="rejected"} 1"#,
      "netquality_alertmanager_queue_length 4", "netquality_alertmanager_queue_capacity 100",
      "netquality_alertmanager_active_alerts 2",
      #"netquality_alertmanager_up{alertmanager="http://127.0.0.1:9093"} 1"#,
      #"netquality_alertmanager_request_duration_seconds_bucket{alertmanager="http://127.0.0.1:9093",le="0.01"} 1"#,
      #"netquality_alertmanager_request_duration_seconds_count{alertmanager="http://127.0.0.1:9093"} 2"#,
    ] {
      XCTAssertTrue(text.contains(line + "\n"), line)
    }
    XCTAssertFalse(
      text.contains(#"netquality_alertmanager_up{alertmanager="http://127.0.0.1:9094"}"#))
  }
}
