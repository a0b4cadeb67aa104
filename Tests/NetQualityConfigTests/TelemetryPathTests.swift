import NetQualityConfig
import XCTest

/// Issue 40: `telemetry_path` (and `--web.telemetry-path`, exporter-toolkit's flag) moves the
/// metrics; a path that is not one, or is another route's, is refused with its line.
final class TelemetryPathTests: XCTestCase, ConfigurationFixtures {
  func testTheDefaultIsMetricsAndTheFileMovesIt() throws {
    XCTAssertEqual(try load("").telemetryPath, "/metrics")
    XCTAssertEqual(
      try load("telemetry_path: /netquality/metrics\n").telemetryPath,
      "/netquality/metrics")
  }

  func testAPathThatIsNotOneIsRefusedWithItsLine() {
    XCTAssertEqual(
      issues("listen: \"127.0.0.1:9470\"\ntelemetry_path: metrics\n"),
      ["2 telemetry_path: 'metrics' must start with '/' (e.g. /metrics)"])
    XCTAssertEqual(
      issues("telemetry_path: \"/metrics?x=1\"\n"),
      ["1 telemetry_path: '/metrics?x=1' may hold only letters, digits, '-', '.', '_', '~' and '/'"]
    )
    XCTAssertNotNil(TelemetryPath.problem("/:id"))
    XCTAssertNotNil(TelemetryPath.problem("/metrics/"))
    XCTAssertNotNil(TelemetryPath.problem("/a//b"))
    XCTAssertNotNil(TelemetryPath.problem("/a/../b"))
  }

  func testAnotherRouteIsRefused() {
    for path in ["/", "/probe", "/runbook", "/api/v1/status", "/-/healthy", "/-/reload"] {
      XCTAssertNotNil(TelemetryPath.problem(path), path)
    }
    XCTAssertEqual(
      TelemetryPath.problem("/probe"),
      "'/probe' is another route of the server; choose another path")
    XCTAssertEqual(
      TelemetryPath.problem("/api/metrics"),
      "'/api/metrics' is under /api/, the server's own routes; choose another path")
    XCTAssertEqual(
      TelemetryPath.problem("/api"),
      "'/api' is under /api/, the server's own routes; choose another path")
    XCTAssertNil(TelemetryPath.problem("/metrics"))
    XCTAssertNil(TelemetryPath.problem("/probe-metrics"))
    XCTAssertNil(TelemetryPath.problem("/x/metrics_v2"))
  }

  func testTheCommandLineOverridesTheFile() throws {
    var overrides = ConfigurationOverrides()
    overrides.telemetryPath = "/m"
    XCTAssertEqual(
      overrides.applied(to: try load("telemetry_path: /other\n")).telemetryPath, "/m")
  }
}
