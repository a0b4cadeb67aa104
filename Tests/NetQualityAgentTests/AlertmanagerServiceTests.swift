import Logging
import NetQualityConfig
import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// The labels every pushed alert carries: `instance` as Prometheus scrapes the agent, so that
/// the pushed alert and the one Prometheus forwards are one alert for Alertmanager.
final class AlertmanagerServiceTests: XCTestCase {
  static func configuration(listen host: String, port: Int = 9470) -> AgentConfiguration {
    var configuration = AgentConfiguration()
    configuration.listenHost = host
    configuration.listenPort = port
    configuration.alertmanager.urls = [AlertmanagerURL("http://127.0.0.1:9093")!]
    return configuration
  }

  func testInstanceIsTheListenAddressOrThisHostsNameOnEveryAddress() {
    let cases: [(String, String)] = [
      ("127.0.0.1", "127.0.0.1:9470"),
      ("10.0.1.5", "10.0.1.5:9470"),
      ("2001:db8::5", "[2001:db8::5]:9470"),
      ("::1", "[::1]:9470"),
      ("0.0.0.0", "media-7:9470"),
      ("::", "media-7:9470"),
    ]
    for (host, instance) in cases {
      let configuration = Self.configuration(listen: host)
      XCTAssertEqual(AlertmanagerService.instance(configuration, hostName: "media-7"), instance)
      XCTAssertEqual(
        AlertmanagerService.generatorURL(configuration, hostName: "media-7"),
        "http://\(instance)/api/v1/alerts")
    }
  }

  func testConfiguredLabelsReplaceInstanceAndJob() throws {
    var configuration = Self.configuration(listen: "127.0.0.1", port: 19472)
    let logger = Logger(label: "test")
    var notifier = try XCTUnwrap(AlertmanagerService.notifier(configuration, logger: logger))
    XCTAssertEqual(
      notifier.settings.context.labels, ["instance": "127.0.0.1:19472", "job": "netquality"])
    configuration.alertmanager.labels = [
      "instance": "sfu-1.example.net:9470", "job": "media", "site": "fra1",
    ]
    notifier = try XCTUnwrap(AlertmanagerService.notifier(configuration, logger: logger))
    XCTAssertEqual(
      notifier.settings.context.labels,
      ["instance": "sfu-1.example.net:9470", "job": "media", "site": "fra1"])
  }

  /// The agent's default runbook is the one the shipped rules name.
  func testTheDefaultRunbookIsTheShippedRulesOne() {
    XCTAssertEqual(AgentConfiguration.defaultRunbookURL, AgentAlertRules.defaultRunbookURL)
    XCTAssertEqual(AgentConfiguration().alertRunbookURL, AgentAlertRules.defaultRunbookURL)
  }
}
