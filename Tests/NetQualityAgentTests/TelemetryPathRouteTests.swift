import Hummingbird
import HummingbirdTesting
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// Issue 40: with `--web.telemetry-path /netquality/metrics` the metrics are there and only
/// there; the status page links to them; the other routes stay where they were.
final class TelemetryPathRouteTests: XCTestCase {
  static let path = "/netquality/metrics"

  func testTheMetricsAreAtThePathAndNotAtMetrics() async throws {
    let router = HTTPServer.router(state: HTTPRoutesTests.tickedState(), metricsPath: Self.path)
    try await Application(router: router).test(.router) { client in
      try await client.execute(uri: Self.path, method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertTrue(String(buffer: response.body).contains("netquality_build_info{"))
      }
      try await client.execute(uri: "/metrics", method: .get) { response in
        XCTAssertEqual(response.status, .notFound)
      }
      // The method middleware knows the path: OPTIONS and POST are answered as on every route.
      try await client.execute(uri: Self.path, method: .options) { response in
        XCTAssertEqual(response.status, .noContent)
        XCTAssertEqual(response.headers[.allow], "GET, HEAD, OPTIONS")
      }
      try await client.execute(uri: Self.path, method: .post) { response in
        XCTAssertEqual(response.status, .methodNotAllowed)
      }
      try await client.execute(uri: "/probe", method: .options) { response in
        XCTAssertEqual(response.status, .noContent)
      }
      try await client.execute(uri: "/-/healthy", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
      }
    }
  }

  func testTheStatusSaysThePath() async throws {
    let state = HTTPRoutesTests.tickedState()
    state.update { $0.status.configuration.telemetryPath = Self.path }
    try await Application(router: HTTPServer.router(state: state, metricsPath: Self.path)).test(
      .router
    ) { client in
      try await client.execute(uri: "/api/v1/status", method: .get) { response in
        let document = try HTTPRoutesTests.json(response.body)
        let configuration = document["configuration"] as? [String: Any]
        XCTAssertEqual(configuration?["telemetry_path"] as? String, Self.path)
      }
    }
  }

  func testTheStatusPageLinksToThePath() async throws {
    let router = HTTPServer.router(state: HTTPRoutesTests.tickedState(), metricsPath: Self.path)
    try await Application(router: router).test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        let page = String(buffer: response.body)
        XCTAssertTrue(page.contains("<a href=\"/netquality/metrics\">/netquality/metrics</a>"))
        XCTAssertFalse(page.contains("href=\"/metrics\""))
      }
    }
  }
}
