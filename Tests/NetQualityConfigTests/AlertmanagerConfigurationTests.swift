import NetQualityConfig
import XCTest

/// The `alertmanager:` section: values, defaults, URLs, labels, and every mistake with its
/// line.
final class AlertmanagerConfigurationTests: XCTestCase, ConfigurationFixtures {
  func testOffByDefaultWithPrometheusDefaults() throws {
    let settings = try load("listen: \"127.0.0.1:9470\"\n").alertmanager
    XCTAssertFalse(settings.enabled)
    XCTAssertEqual(settings.timeoutSeconds, 10)
    XCTAssertEqual(settings.resendIntervalSeconds, 60)
    XCTAssertEqual(settings.queueCapacity, 10_000)
    XCTAssertEqual(settings.labels, [:])
  }

  func testAClusterOfURLsAndEveryKey() throws {
    let settings = try load(
      """
      alertmanager:
        urls:
          - "http://127.0.0.1:9093"
          - "http://alertmanager-2.example/prefix/"
          - "http://[::1]:19093"
        timeout_seconds: 2.5
        resend_interval_seconds: 15
        queue_capacity: 100
        labels: {site: fra1, instance: media-7}
      """
    ).alertmanager
    XCTAssertTrue(settings.enabled)
    XCTAssertEqual(
      settings.urls.map(\.description),
      ["http://127.0.0.1:9093", "http://alertmanager-2.example:80/prefix", "http://[::1]:19093"])
    XCTAssertEqual(
      settings.urls.map(\.alertsPath),
      ["/api/v2/alerts", "/prefix/api/v2/alerts", "/api/v2/alerts"])
    XCTAssertEqual(settings.urls[2].host, "::1")
    XCTAssertEqual(settings.urls[2].authority, "[::1]:19093")
    XCTAssertEqual(settings.timeoutSeconds, 2.5)
    XCTAssertEqual(settings.resendIntervalSeconds, 15)
    XCTAssertEqual(settings.queueCapacity, 100)
    XCTAssertEqual(settings.labels, ["site": "fra1", "instance": "media-7"])
  }

  func testOneURL() throws {
    let settings = try load("alertmanager: {url: \"http://10.0.0.5:9093\"}\n").alertmanager
    XCTAssertEqual(settings.urls.map(\.host), ["10.0.0.5"])
    XCTAssertEqual(settings.urls.map(\.port), [9093])
  }

  func testURLsThatAreRefused() {
    for text in [
      "ftp://127.0.0.1:9093", "https://user:pw@host", "127.0.0.1:9093", "http://", "http://host:0",
      "http://host:99999",
      "http://user@host:9093", "http://host:9093/x?y=1", "http://[::1", "http://ho st:9093",
      "http://a:b:c",
    ] {
      XCTAssertNil(AlertmanagerURL(text), text)
    }
  }

  func testMistakesAreReportedWithTheirLines() {
    XCTAssertEqual(
      issues(
        """
        alertmanager:
          url: "http://127.0.0.1:9093"
          urls:
            - "ftp://secure.example:9093"
            - "http://127.0.0.1:9094"
            - "http://127.0.0.1:9094/"
          timeout_seconds: 0
          resend_interval_seconds: "soon"
          queue_capacity: 0
          labels:
            9lives: x
            severity: page
            team: ""
            region: eu
          colour: blue
        """),
      [
        "3 alertmanager.urls: give url or urls, not both",
        "4 alertmanager.urls[0]: 'ftp://secure.example:9093': \(AlertmanagerURL.expected)",
        "6 alertmanager.urls[2]: http://127.0.0.1:9094 is listed twice",
        "7 alertmanager.timeout_seconds: 0.0 is out of range 0.1...300.0",
        "8 alertmanager.resend_interval_seconds: expected a number",
        "9 alertmanager.queue_capacity: 0 is out of range 1...1000000",
        "11 alertmanager.labels.9lives: not a label name: letters, digits and _, not starting "
          + "with a digit or __",
        "12 alertmanager.labels.severity: set by each alert itself; choose another name",
        "13 alertmanager.labels.team: an empty value means no label: remove the key instead",
        "15 alertmanager.colour: unknown key; known keys here: url, urls, timeout_seconds, "
          + "resend_interval_seconds, queue_capacity, labels, basic_auth, authorization, tls_config",
      ])
  }

  func testLabelNamesFollowThePrometheusDataModel() {
    for name in ["site", "_x", "Team_2"] {
      XCTAssertTrue(AlertmanagerSettings.isValidLabelName(name), name)
    }
    for name in ["", "2x", "a-b", "__meta", "é"] {
      XCTAssertFalse(AlertmanagerSettings.isValidLabelName(name), name)
    }
  }
}
