import NetQualityCore
import XCTest

@testable import NetQualityExport

final class PrometheusExpositionTests: XCTestCase {
  func testLabelValuesAreEscaped() {
    XCTAssertEqual(MetricsWriter.escapeLabel(#"a\b"c"# + "\nd"), #"a\\b\"c\nd"#)
    var writer = MetricsWriter()
    let family = MetricFamily.gauge("netquality_x", "help with \\ and\nnewline")
    writer.family(family)
    writer.sample(family, [("peer", "odd\"name")], 0.25)
    XCTAssertEqual(
      writer.text,
      "# HELP netquality_x help with \\\\ and\\nnewline\n# TYPE netquality_x gauge\nnetquality_x{peer=\"odd\\\"name\"} 0.25\n"
    )
  }

  func testNumbersAreExpositionNumbers() {
    XCTAssertEqual(MetricsWriter.number(3), "3")
    XCTAssertEqual(MetricsWriter.number(0.5), "0.5")
    XCTAssertEqual(MetricsWriter.number(.nan), "NaN")
    XCTAssertEqual(MetricsWriter.number(.infinity), "+Inf")
  }

  func testEmptyAgentStillExportsBuildInfoAndConfigState() {
    // What the agent registers before its first tick, with no optional subsystem.
    let text = PrometheusExposition.render([
      BuildInfoCollector(version: "9.9", revision: "abc", swiftVersion: "6.3"),
      TickMetrics(nil, alerts: [], settings: .init()),
      CaptureInterfacesCollector(interfaces: []), EngineCollector(),
      ProbeSenderCollector(senders: []),
      ConfigurationCollector(lastReloadSuccessful: false, lastReloadSuccessTime: nil),
      ScrapeDurationCollector(previousRenderSeconds: 0.002),
    ])
    XCTAssertTrue(
      text.contains(
        "netquality_build_info{revision=\"abc\",swiftversion=\"6.3\",version=\"9.9\"} 1\n"),
      text)
    XCTAssertTrue(text.contains("netquality_config_last_reload_successful 0\n"))
    XCTAssertTrue(text.contains("netquality_scrape_duration_seconds 0.002\n"))
    XCTAssertFalse(text.contains("netquality_peer_quality_level{"))
    // Every family announces itself once, with HELP and TYPE.
    let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
    XCTAssertEqual(Set(types).count, types.count)
  }

  func testInterfacesExportCaptureDropsApartFromNetworkLoss() {
    let text = PrometheusExposition.render([
      CaptureInterfacesCollector(interfaces: [
        .init(
          name: "eth0", capturing: true, linkUp: true, receivedPackets: 10, droppedPackets: 2,
          interfaceDroppedPackets: 1)
      ])
    ])
    XCTAssertTrue(
      text.contains("netquality_capture_received_packets_total{interface=\"eth0\"} 10\n"))
    XCTAssertTrue(text.contains("netquality_capture_dropped_packets_total{interface=\"eth0\"} 2\n"))
    XCTAssertTrue(
      text.contains("netquality_capture_interface_dropped_packets_total{interface=\"eth0\"} 1\n"))
    XCTAssertTrue(text.contains("netquality_link_up{interface=\"eth0\"} 1\n"))
  }
}

extension PrometheusExpositionTests {
  /// Every decode-error reason is a series from the start, so a rate sees the first error.
  func testEveryDecodeErrorReasonIsExportedFromZero() {
    var capture = CaptureCounters()
    capture.decodeErrors = ["rtp_header": 3]
    let text = PrometheusExposition.render([EngineCollector(capture: capture)])
    let lines = text.split(separator: "\n").filter {
      $0.hasPrefix("netquality_decode_errors_total{")
    }
    XCTAssertEqual(lines.count, MalformedReason.allCases.count)
    XCTAssertTrue(lines.contains("netquality_decode_errors_total{reason=\"rtp_header\"} 3"))
    XCTAssertTrue(lines.contains("netquality_decode_errors_total{reason=\"ip_length\"} 0"))
  }
}
