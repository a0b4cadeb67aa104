import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import Synchronization
import XCTest

@testable import NetQualityAgent

/// `GET /probe?target=…`: what it accepts, and a real measurement against a reflector on
/// loopback (and against a port where nothing answers).
final class ProbeEndpointTests: XCTestCase {
  func query(_ text: String) -> Parameters {
    URI("/probe?" + text).queryParameters
  }

  func request(_ text: String, scrapeTimeout: Double? = nil) throws -> ProbeEndpoint.Request {
    try ProbeEndpoint.request(query(text), scrapeTimeoutSeconds: scrapeTimeout)
  }

  func refusal(_ text: String, scrapeTimeout: Double? = nil) -> String? {
    do {
      _ = try ProbeEndpoint.request(query(text), scrapeTimeoutSeconds: scrapeTimeout)
      return nil
    } catch {
      return error.description
    }
  }

  func testRequestsDefaultsAndBounds() throws {
    let plain = try request("target=192.0.2.10")
    XCTAssertEqual(plain.target.description, "192.0.2.10:862", "STAMP's port by default")
    XCTAssertEqual(plain.count, 10)
    XCTAssertEqual(plain.intervalSeconds, 0.02)
    XCTAssertEqual(plain.timeoutSeconds, 1)
    let full = try request("target=[2001:db8::10]:4000&count=50&interval=5ms&timeout=500ms")
    XCTAssertEqual(full.target.description, "[2001:db8::10]:4000")
    XCTAssertEqual(full.count, 50)
    XCTAssertEqual(full.intervalSeconds, 0.005, accuracy: 1e-12)
    XCTAssertEqual(full.timeoutSeconds, 0.5, accuracy: 1e-12)
    XCTAssertEqual(try request("target=[2001:db8::10]").target.port, 862)

    XCTAssertEqual(
      refusal(""), "target: required, ADDRESS[:PORT] of a STAMP reflector")
    XCTAssertNotNil(refusal("target=reflector.example.com")?.range(of: "host names"))
    XCTAssertNotNil(refusal("target=0.0.0.0:862"))
    XCTAssertNotNil(refusal("target=192.0.2.10:0"))
    XCTAssertEqual(refusal("target=192.0.2.10&count=0"), "count 0: a whole number from 1 to 100")
    XCTAssertEqual(
      refusal("target=192.0.2.10&count=101"), "count 101: a whole number from 1 to 100")
    XCTAssertNotNil(refusal("target=192.0.2.10&interval=2s"))
    XCTAssertNotNil(refusal("target=192.0.2.10&timeout=10s"))
    XCTAssertNotNil(refusal("target=192.0.2.10&module=icmp")?.range(of: "not a parameter"))
    XCTAssertNotNil(refusal("target=192.0.2.10&target=192.0.2.11")?.range(of: "given 2 times"))
    // 100 probes 50 ms apart and 1 s of timeout: 5.95 s, more than a 5 s scrape allows.
    XCTAssertNotNil(
      refusal("target=192.0.2.10&count=100&interval=50ms", scrapeTimeout: 5)?.range(
        of: "raise scrape_timeout"))
    XCTAssertNoThrow(try request("target=192.0.2.10&count=100&interval=50ms", scrapeTimeout: 10))
    // Never more than 10 s, whatever the scraper says.
    XCTAssertNotNil(refusal("target=192.0.2.10&count=100&interval=100ms", scrapeTimeout: 60))
  }

  /// Five probes to a real reflector on loopback: all answered, round trips under a
  /// millisecond and above 0, nothing lost; the exposition says so in blackbox's words.
  func testMeasuresAReflectorOnLoopback() throws {
    let reflector = try Reflector(
      configuration: ReflectorConfiguration(),
      listen: try XCTUnwrap(Endpoint(parsing: "127.0.0.1:0")))
    let stop = ManagedAtomicFlag()
    let opened = ProbeService.Opened(reflector)
    let thread = Thread {
      try? opened.value.run(checkIntervalMilliseconds: 20) { stop.isSet }
    }
    thread.start()
    defer { stop.set() }
    var request = ProbeEndpoint.Request(target: reflector.socket.localEndpoint)
    request.count = 5
    request.intervalSeconds = 0.005
    request.timeoutSeconds = 1
    let result = try ProbeEndpoint.measure(request, WorkInterruption())
    XCTAssertEqual(result.sent, 5)
    XCTAssertEqual(result.received, 5)
    XCTAssertEqual(result.lostForward + result.lostBackward + result.lostUnknown, 0)
    XCTAssertEqual(result.roundTripsSeconds.count, 5)
    for rtt in result.roundTripsSeconds {
      XCTAssertGreaterThan(rtt, 0)
      XCTAssertLessThan(rtt, 0.05)
    }
    XCTAssertLessThan(result.durationSeconds, 1, "the answers end it, not the timeout")
    let text = PrometheusExposition.render([result])
    XCTAssertTrue(text.contains("\nprobe_success 1\n"), text)
    let target = reflector.socket.localEndpoint.description
    XCTAssertTrue(text.contains("netquality_oneshot_probes_sent{target=\"\(target)\"} 5\n"), text)
    XCTAssertTrue(text.contains("netquality_oneshot_rtt_seconds_count{target=\"\(target)\"} 5\n"))
    XCTAssertTrue(text.contains("# TYPE netquality_oneshot_rtt_seconds summary\n"))
    XCTAssertTrue(
      text.contains("netquality_oneshot_loss_ratio{target=\"\(target)\"} 0\n"), text)
  }

  /// Nothing listens: every probe settles lost at its deadline, their direction unknown (no
  /// answer came after them), and probe_success is 0.
  func testNothingAnsweringIsNoSuccess() throws {
    let socket = try UDPSocket(binding: try XCTUnwrap(Endpoint(parsing: "127.0.0.1:0")))
    var request = ProbeEndpoint.Request(target: socket.localEndpoint)
    request.count = 3
    request.intervalSeconds = 0.01
    request.timeoutSeconds = 0.2
    let result = try ProbeEndpoint.measure(request, WorkInterruption())
    XCTAssertEqual(result.sent, 3)
    XCTAssertEqual(result.received, 0)
    XCTAssertEqual(result.lostUnknown, 3)
    XCTAssertGreaterThanOrEqual(result.durationSeconds, 0.2)
    let text = PrometheusExposition.render([result])
    XCTAssertTrue(text.contains("\nprobe_success 0\n"), text)
    XCTAssertTrue(text.contains("quantile=\"0.5\"} NaN\n"), text)
  }

  func testTheRouteRefusesABadTargetWith400() async throws {
    let app = Application(router: HTTPServer.router(state: HTTPRoutesTests.tickedState()))
    try await app.test(.router) { client in
      try await client.execute(uri: "/probe?target=nowhere", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
        XCTAssertTrue(String(buffer: response.body).contains("host names are not resolved"))
      }
      try await client.execute(uri: "/probe", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
      }
    }
  }

  /// Issue 39: the 400 answer echoed `target`'s control bytes raw (ESC sequences reach the
  /// terminal of whoever reads it with curl). They are shown as `\xNN`.
  func testTheRefusalShowsControlBytesEscaped() async throws {
    let app = Application(router: HTTPServer.router(state: HTTPRoutesTests.tickedState()))
    try await app.test(.router) { client in
      try await client.execute(uri: "/probe?target=%1B%5D52%3Bc%3Bx%07%C2%9B", method: .get) {
        response in
        XCTAssertEqual(response.status, .badRequest)
        let body = String(buffer: response.body)
        XCTAssertFalse(
          body.unicodeScalars.dropLast().contains { $0.value < 0x20 || (0x7F...0x9F) ~= $0.value },
          body)
        XCTAssertTrue(body.hasPrefix("target \\x1B]52;c;x\\x07\\x9B"), body)
      }
    }
  }

  // MARK: Where it may send (issue 39)

  /// Issue 39: `/probe` sent wherever it was told (10,700 packets in 20 s to any address and
  /// port, the agent's own HTTP port and reflector included). A target that is neither
  /// configured nor allowed is answered 403, and no packet leaves.
  func testAnUnlistedTargetIsRefusedWith403AndNothingIsSent() async throws {
    let victim = try UDPSocket(binding: try XCTUnwrap(Endpoint(parsing: "127.0.0.1:0")))
    let app = Application(router: HTTPServer.router(state: HTTPRoutesTests.tickedState()))
    let target = victim.localEndpoint.description
    try await app.test(.router) { client in
      try await client.execute(
        uri: "/probe?target=\(target)&count=3&interval=10ms&timeout=100ms", method: .get
      ) { response in
        XCTAssertEqual(response.status, .forbidden)
        XCTAssertEqual(
          String(buffer: response.body),
          "target \(target): neither a configured probe target nor in probe_endpoint.allow\n")
      }
    }
    // The probes would have left before the answer; the bound covers loopback's delivery.
    XCTAssertFalse(try victim.waitUntilReadable(timeoutMilliseconds: 200), "a packet was sent")
  }

  func endpoint(_ text: String) throws -> Endpoint {
    try XCTUnwrap(Endpoint(parsing: text), text)
  }

  /// Configured targets and `probe_endpoint.allow` (CIDR, CIDR:PORT) are allowed, nothing
  /// else; the agent's own HTTP port and reflector never, even when allowed.
  func testOnlyConfiguredTargetsAndTheAllowListAndNeverTheAgentsOwnSockets() throws {
    var configuration = AgentConfiguration()
    configuration.probes = [ProbeTargetSettings(target: try endpoint("192.0.2.10:862"))]
    configuration.probeEndpoint.allow = try [
      "198.51.100.0/24", "203.0.113.5:4000", "127.0.0.0/8", "[2001:db8::/32]:862",
    ].map { try XCTUnwrap(ProbeAllowRule($0), $0) }
    configuration.listenHost = "0.0.0.0"
    configuration.listenPort = 9470
    configuration.reflector.enabled = true
    configuration.reflector.listen = try endpoint("0.0.0.0:8620")
    let local = [try XCTUnwrap(NetworkPrefix("10.1.2.3/32"))]
    func refused(_ text: String) throws -> Bool {
      ProbeEndpoint.refusal(
        of: try endpoint(text), configuration: configuration, localNetworks: local) != nil
    }
    XCTAssertFalse(try refused("192.0.2.10:862"), "a configured target")
    XCTAssertTrue(try refused("192.0.2.10:863"), "another port of a configured target")
    XCTAssertTrue(try refused("192.0.2.11:862"))
    XCTAssertFalse(try refused("198.51.100.77:9"), "allowed network, any port")
    XCTAssertFalse(try refused("203.0.113.5:4000"))
    XCTAssertTrue(try refused("203.0.113.5:4001"), "allowed for port 4000 only")
    XCTAssertFalse(try refused("[2001:db8::7]:862"))
    XCTAssertTrue(try refused("[2001:db8::7]:863"))
    XCTAssertFalse(try refused("127.0.0.1:5000"), "allowed loopback, not the agent's port")
    XCTAssertTrue(try refused("127.0.0.1:9470"), "the agent's HTTP port")
    XCTAssertTrue(try refused("127.0.0.2:8620"), "the agent's reflector")
    configuration.probeEndpoint.allow.append(try XCTUnwrap(ProbeAllowRule("10.0.0.0/8")))
    XCTAssertTrue(try refused("10.1.2.3:9470"), "an address of this host, the HTTP port")
    XCTAssertFalse(try refused("10.1.2.4:9470"), "another host's port 9470")
    XCTAssertEqual(
      ProbeEndpoint.refusal(
        of: try endpoint("127.0.0.1:9470"), configuration: configuration, localNetworks: local),
      "target 127.0.0.1:9470: the agent's own HTTP port")
  }

  func testAllowRulesParse() {
    XCTAssertEqual(ProbeAllowRule("192.0.2.0/24")?.description, "192.0.2.0/24")
    XCTAssertEqual(ProbeAllowRule("192.0.2.10:862")?.description, "192.0.2.10/32:862")
    XCTAssertEqual(ProbeAllowRule("[2001:db8::/32]:862")?.description, "[2001:db8::/32]:862")
    XCTAssertEqual(ProbeAllowRule("2001:db8::/32")?.port, nil)
    for bad in ["", "192.0.2.0/24:0", "192.0.2.0/24:70000", "[2001:db8::/32]", "host:862"] {
      XCTAssertNil(ProbeAllowRule(bad), bad)
    }
  }
}
