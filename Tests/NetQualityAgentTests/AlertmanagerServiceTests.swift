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

  /// Issue 40: a listen address written with a host name names the agent by that name, not
  /// by the address it resolved to (`localhost`, from the hosts file).
  func testInstanceKeepsTheListenAddressHostName() throws {
    var configuration = Self.configuration(listen: "127.0.0.1")
    configuration.listen = try XCTUnwrap(ListenAddress("localhost:9471"))
    XCTAssertEqual(configuration.listenHost, "127.0.0.1")
    XCTAssertEqual(
      AlertmanagerService.instance(configuration, hostName: "media-7"), "localhost:9471")
  }

  func testConfiguredLabelsReplaceInstanceAndJob() throws {
    var configuration = Self.configuration(listen: "127.0.0.1", port: 19472)
    let logger = Logger(label: "test")
    var notifier = try XCTUnwrap(try AlertmanagerService.notifier(configuration, logger: logger))
    XCTAssertEqual(
      notifier.settings.context.labels, ["instance": "127.0.0.1:19472", "job": "netquality"])
    configuration.alertmanager.labels = [
      "instance": "sfu-1.example.net:9470", "job": "media", "site": "fra1",
    ]
    notifier = try XCTUnwrap(try AlertmanagerService.notifier(configuration, logger: logger))
    XCTAssertEqual(
      notifier.settings.context.labels,
      ["instance": "sfu-1.example.net:9470", "job": "media", "site": "fra1"])
  }

  /// Issue 40: the default runbook is the agent's own page (`GET /runbook`), which opens
  /// wherever the agent is reached: in a pushed alert at the agent's `instance`, in the rules
  /// Prometheus evaluates at the alert's `instance` label (the shipped rules' URL); a
  /// configured one is used as it is.
  func testTheDefaultRunbookIsTheAgentsOwnPage() throws {
    XCTAssertEqual(AgentConfiguration().alertRunbookURL, "")
    var configuration = Self.configuration(listen: "0.0.0.0", port: 9470)
    XCTAssertEqual(
      AlertmanagerService.runbookURL(configuration, hostName: "media-7", scheme: "https"),
      "https://media-7:9470/runbook")
    XCTAssertEqual(
      AgentAlertRules.rulesRunbookURL(configured: "", scheme: "http"),
      AgentAlertRules.defaultRunbookURL)
    configuration.alertRunbookURL = "https://wiki.example.net/runbook"
    XCTAssertEqual(
      AlertmanagerService.runbookURL(configuration, hostName: "media-7", scheme: "https"),
      "https://wiki.example.net/runbook")
    let notifier = try XCTUnwrap(
      AlertmanagerService.notifier(
        Self.configuration(listen: "127.0.0.1", port: 19472), logger: Logger(label: "test")))
    XCTAssertEqual(notifier.settings.context.runbookURL, "http://127.0.0.1:19472/runbook")
  }
}
