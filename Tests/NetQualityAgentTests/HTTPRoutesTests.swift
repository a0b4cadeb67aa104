import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NetQualityCore
import NetQualitySynth
import XCTest

@testable import NetQualityAgent

/// Every route of the agent through Hummingbird's test client, without sockets: what a
/// scraper, `top` and a browser get.
final class HTTPRoutesTests: XCTestCase {
  static let local = Endpoint(address: IPAddress(ipv4: 192, 0, 2, 1), port: 4000)
  static let remote = Endpoint(address: IPAddress(ipv4: 198, 51, 100, 2), port: 6000)

  func tickedState() -> AgentState { Self.tickedState() }

  /// An agent state that has ticked over 4 s of a clean G.711 call from the remote peer.
  static func tickedState() -> AgentState {
    let (engine, result) = tickedEngine()
    let state = AgentState(engine: engine)
    state.update { $0.lastTick = result }
    return state
  }

  /// The engine behind `tickedState`, and its last tick.
  static func tickedEngine() -> (Engine, Engine.TickResult) {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("192.0.2.0/24")].compactMap { $0 }
    var engine = Engine(configuration: configuration)
    let start: Int64 = 1_767_225_600_000_000_000
    let result: Engine.TickResult
    for index in 0..<200 {
      let at = start + Int64(index) * 20_000_000
      if index == 100 { _ = engine.tick(at: CaptureTime(nanosecondsSinceEpoch: at)) }
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160),
        ssrc: 0xC0FFEE)
      let frame = PacketBuilder.frame(source: Self.remote, destination: Self.local, payload: rtp)
      frame.withUnsafeBytes {
        engine.ingest(
          frame: $0, originalLength: $0.count, linkType: .ethernet,
          at: CaptureTime(nanosecondsSinceEpoch: at))
      }
    }
    result = engine.tick(at: CaptureTime(nanosecondsSinceEpoch: start + 4_000_000_000))
    return (engine, result)
  }

  func test(
    _ state: AgentState, _ body: @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router, body)
  }

  static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
    try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(String(buffer: buffer).utf8)) as? [String: Any])
  }

  func testMetricsAreTheLastTickInTheTextFormat() async throws {
    try await test(tickedState()) { client in
      try await client.execute(uri: "/metrics", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(
          response.headers[.contentType], "text/plain; version=0.0.4; charset=utf-8")
        let text = String(buffer: response.body)
        XCTAssertTrue(
          text.contains(
            "netquality_build_info{revision=\"\(BuildInfo.revision)\",swiftversion=\"\(BuildInfo.swiftVersion)\",version=\"\(BuildInfo.version)\"} 1"
          ), text)
        // The process collector's families, with this process' own figures.
        let resident = text.split(separator: "\n").first {
          $0.hasPrefix("process_resident_memory_bytes ")
        }.flatMap { Double($0.split(separator: " ")[1]) }
        XCTAssertGreaterThan(resident ?? 0, 1_048_576, text)
        let start = text.split(separator: "\n").first {
          $0.hasPrefix("process_start_time_seconds ")
        }.flatMap { Double($0.split(separator: " ")[1]) }
        XCTAssertEqual(
          start ?? 0, Date().timeIntervalSince1970, accuracy: 3600, "started this hour")
        XCTAssertTrue(
          text.contains("netquality_peer_quality_level{peer=\"198.51.100.2\",direction=\"rx\"} 1"),
          text)
        XCTAssertTrue(text.contains("netquality_host_quality_level{direction=\"rx\"} 1"), text)
      }
    }
  }

  func testMetricsCountTheServersConnections() async throws {
    let registry = ConnectionRegistry(
      limits: HTTPLimits(maxConnections: 1, requestTimeoutSeconds: 60))
    let app = Application(router: HTTPServer.router(state: tickedState(), registry: registry))
    try await app.test(.router) { client in
      try await client.execute(uri: "/metrics", method: .get) { response in
        let text = String(buffer: response.body)
        XCTAssertTrue(text.contains("\nnetquality_http_connections 0\n"), text)
        for reason in ["evicted", "refused", "timeout"] {
          XCTAssertTrue(
            text.contains("netquality_http_connections_closed_total{reason=\"\(reason)\"} 0"),
            reason)
        }
      }
    }
  }

  func testMetricsCountTheDashboardFilesRotationsAndFailures() async throws {
    let state = tickedState()
    state.dashboardCounters.rotations.add(3, ordering: .relaxed)
    state.dashboardCounters.rotationFailures.add(2, ordering: .relaxed)
    state.dashboardCounters.failedWrites.add(1, ordering: .relaxed)
    try await test(state) { client in
      try await client.execute(uri: "/metrics", method: .get) { response in
        let text = String(buffer: response.body)
        XCTAssertTrue(text.contains("\nnetquality_dashboard_rotations_total 3\n"), text)
        XCTAssertTrue(text.contains("\nnetquality_dashboard_rotation_failures_total 2\n"), text)
        XCTAssertTrue(text.contains("\nnetquality_dashboard_failed_writes_total 1\n"), text)
        XCTAssertTrue(text.contains("# TYPE netquality_dashboard_rotations_total counter\n"), text)
      }
    }
  }

  func testHealthAndReadiness() async throws {
    let state = AgentState(engine: Engine())
    try await test(state) { client in
      try await client.execute(uri: "/-/healthy", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(String(buffer: response.body), "OK\n")
      }
      try await client.execute(uri: "/-/ready", method: .get) { response in
        XCTAssertEqual(response.status, .serviceUnavailable, "not ready before the captures run")
      }
      state.update { $0.ready = true }
      try await client.execute(uri: "/-/ready", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
      }
    }
  }

  /// The status page keeps the landing page's links (its rows: `StatusPageRouteTests`).
  func testStatusPageLinksTheEndpoints() async throws {
    try await test(tickedState()) { client in
      try await client.execute(uri: "/", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
        let page = String(buffer: response.body)
        for path in ["/metrics", "/api/v1/peers", "/api/v1/status"] {
          XCTAssertTrue(page.contains("href=\"\(path)\""), path)
        }
      }
    }
  }

  func testPeersStreamsAlertsAndStatusAreJSON() async throws {
    let state = tickedState()
    try await test(state) { client in
      try await client.execute(uri: "/api/v1/peers", method: .get) { response in
        XCTAssertEqual(response.headers[.contentType], "application/json")
        let document = try Self.json(response.body)
        let peers = try XCTUnwrap(document["peers"] as? [[String: Any]])
        XCTAssertEqual(peers.count, 1)
        XCTAssertEqual(peers.first?["peer"] as? String, "198.51.100.2")
        XCTAssertEqual(peers.first?["rx_quality"] as? Int, 1)
        XCTAssertEqual((document["host"] as? [String: Any])?["rx_quality"] as? Int, 1)
      }
      try await client.execute(uri: "/api/v1/streams", method: .get) { response in
        let streams = try XCTUnwrap(try Self.json(response.body)["streams"] as? [[String: Any]])
        XCTAssertEqual(streams.count, 1)
        XCTAssertEqual(streams.first?["ssrc"] as? String, "0x00C0FFEE")
        XCTAssertEqual(streams.first?["direction"] as? String, "rx")
        XCTAssertEqual(streams.first?["packets"] as? Int, 100)
      }
      try await client.execute(uri: "/api/v1/alerts", method: .get) { response in
        XCTAssertEqual((try Self.json(response.body)["alerts"] as? [Any])?.count, 0)
      }
      try await client.execute(uri: "/api/v1/status", method: .get) { response in
        let document = try Self.json(response.body)
        XCTAssertEqual(document["version"] as? String, BuildInfo.version)
        let configuration = try XCTUnwrap(document["configuration"] as? [String: Any])
        XCTAssertEqual(configuration["max_streams"] as? Int, 200_000)
        XCTAssertEqual((document["reload"] as? [String: String])?["listen"], "restart")
      }
    }
  }

  func testHeadAnswersLikeGetWithoutABody() async throws {
    try await test(tickedState()) { client in
      for path in HTTPServer.paths().sorted() {
        let length = try await client.execute(uri: path, method: .get) { response in
          response.headers[.contentLength]
        }
        try await client.execute(uri: path, method: .head) { response in
          XCTAssertNotEqual(response.status, .notFound, path)
          XCTAssertEqual(response.body.readableBytes, 0, path)
          // /metrics reports its previous render's duration, so only its presence is stable.
          if path == "/metrics" {
            XCTAssertNotNil(response.headers[.contentLength], path)
          } else {
            XCTAssertEqual(response.headers[.contentLength], length, path)
          }
        }
      }
    }
  }

  func testOtherMethodsAreAnsweredAsHTTPSays() async throws {
    try await test(tickedState()) { client in
      try await client.execute(uri: "/metrics", method: .options) { response in
        XCTAssertEqual(response.status, .noContent)
        XCTAssertEqual(response.headers[.allow], "GET, HEAD, OPTIONS")
      }
      try await client.execute(uri: "/api/v1/peers", method: .post) { response in
        XCTAssertEqual(response.status, .methodNotAllowed)
        XCTAssertEqual(response.headers[.allow], "GET, HEAD, OPTIONS")
      }
      try await client.execute(uri: "/nothing-here", method: .get) { response in
        XCTAssertEqual(response.status, .notFound)
      }
    }
  }

  /// Prometheus' lifecycle API: `POST /-/reload` runs the SIGHUP reload and answers its
  /// outcome; refused 403 unless enabled; GET there is 405 with `Allow: POST, PUT, OPTIONS`.
  func testReloadOverHTTPOnlyWhenEnabled() async throws {
    let disabled = Application(router: HTTPServer.router(state: Self.tickedState()))
    try await disabled.test(.router) { client in
      try await client.execute(uri: "/-/reload", method: .post) { response in
        XCTAssertEqual(response.status, .forbidden)
        XCTAssertEqual(String(buffer: response.body), "Lifecycle API is not enabled.\n")
      }
      try await client.execute(uri: "/-/reload", method: .get) { response in
        XCTAssertEqual(response.status, .methodNotAllowed)
        XCTAssertEqual(response.headers[.allow], "POST, PUT, OPTIONS")
      }
    }
    let calls = ManagedAtomicFlag()
    let refuse = ManagedAtomicFlag()
    let enabled = Application(
      router: HTTPServer.router(
        state: Self.tickedState(),
        reload: {
          calls.set()
          return refuse.isSet
            ? .init(succeeded: false, lines: ["reload kept the old configuration: line 3: x"])
            : .init(succeeded: true, lines: [])
        }))
    try await enabled.test(.router) { client in
      try await client.execute(uri: "/-/reload", method: .post) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(String(buffer: response.body), "reloaded\n")
      }
      XCTAssertTrue(calls.isSet)
      refuse.set()
      try await client.execute(uri: "/-/reload", method: .put) { response in
        XCTAssertEqual(response.status, .internalServerError)
        XCTAssertEqual(
          String(buffer: response.body), "reload kept the old configuration: line 3: x\n")
      }
    }
  }

  /// Issue 39: with the lifecycle API on and no authentication, a page of another site could
  /// make the operator's browser reload the agent. A browser's cross-site POST is refused 403
  /// and never reloads; curl's and a same-origin page's are not refused.
  func testACrossSiteReloadFromABrowserIsRefused() async throws {
    let calls = ManagedAtomicCounter()
    let app = Application(
      router: HTTPServer.router(
        state: Self.tickedState(),
        reload: {
          calls.increment()
          return .init(succeeded: true, lines: [])
        }))
    let secFetchSite = try XCTUnwrap(CrossSiteRequest.secFetchSite)
    let host = try XCTUnwrap(CrossSiteRequest.hostField)
    try await app.test(.router) { client in
      let refused: [HTTPFields] = [
        [.origin: "http://evil.example", host: "127.0.0.1:9470"],
        [.origin: "null", host: "127.0.0.1:9470"],
        [.origin: "https://127.0.0.1:9470", host: "127.0.0.1:9470"],
        [secFetchSite: "cross-site", host: "127.0.0.1:9470"],
        [secFetchSite: "same-site", .origin: "http://127.0.0.1:9470", host: "127.0.0.1:9470"],
      ]
      for headers in refused {
        try await client.execute(uri: "/-/reload", method: .post, headers: headers) { response in
          XCTAssertEqual(response.status, .forbidden, "\(headers)")
          XCTAssertEqual(String(buffer: response.body), "cross-origin request refused\n")
        }
      }
      XCTAssertEqual(calls.value, 0)
      let accepted: [HTTPFields] = [
        [host: "127.0.0.1:9470"],
        [.origin: "http://127.0.0.1:9470", host: "127.0.0.1:9470"],
        [.origin: "http://agent.example", host: "agent.example:80"],
        [secFetchSite: "same-origin", .origin: "http://127.0.0.1:9470", host: "127.0.0.1:9470"],
      ]
      for headers in accepted {
        try await client.execute(uri: "/-/reload", method: .post, headers: headers) { response in
          XCTAssertEqual(response.status, .ok, "\(headers)")
        }
      }
      XCTAssertEqual(calls.value, accepted.count)
    }
  }
}
