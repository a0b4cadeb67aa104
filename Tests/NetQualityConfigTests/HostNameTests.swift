import NetQualityConfig
import NetQualityCore
import XCTest

/// Issue 40: host names in `HOST:PORT` addresses, resolved once at load (getaddrinfo, the first
/// IPv4 address as Go's net.Listen takes it), the name kept for what the agent is called.
/// `localhost` only (the hosts file), and other names through `offlineResolve`: no DNS query.
final class HostNameTests: XCTestCase, ConfigurationFixtures {
  func testLocalhostListensOnLoopbackAndKeepsItsName() throws {
    let configuration = try load("listen: \"localhost:9470\"\n")
    XCTAssertEqual(configuration.listenHost, "127.0.0.1")
    XCTAssertEqual(configuration.listenPort, 9470)
    XCTAssertEqual(configuration.listenHostName, "localhost")
    XCTAssertEqual(configuration.listen.written, "localhost:9470")
    XCTAssertEqual(configuration.listen.shown, "localhost:9470 (127.0.0.1)")
    XCTAssertEqual(configuration.listen.description, "127.0.0.1:9470")
  }

  func testTheFirstIPv4AddressIsTakenAsGoTakesIt() {
    let resolve: HostNameResolver.Resolve = { _ in
      .success(
        [IPAddress("::1"), IPAddress("127.0.0.1"), IPAddress("127.0.0.2")].compactMap { $0 })
    }
    HostNameResolver.$resolve.withValue(resolve) {
      XCTAssertEqual(ListenAddress("dual:9470")?.host, "127.0.0.1")
    }
    let onlyIPv6: HostNameResolver.Resolve = { _ in .success([IPAddress("::1")].compactMap { $0 }) }
    HostNameResolver.$resolve.withValue(onlyIPv6) {
      XCTAssertEqual(ListenAddress("six:9470")?.description, "[::1]:9470")
    }
  }

  func testANameAndItsAddressAreOneSocket() {
    XCTAssertEqual(
      issues("listen: [\"localhost:9470\", \"127.0.0.1:9470\"]\n"),
      ["1 listen[1]: '127.0.0.1:9470' is listed twice"])
  }

  func testAnUnresolvableNameIsReportedWithItsLine() {
    XCTAssertEqual(
      issues("tick_interval: 2\nlisten: \"nowhere.invalid:9470\"\n"),
      [
        "2 listen: 'nowhere.invalid:9470': cannot resolve 'nowhere.invalid': "
          + "Name or service not known"
      ])
  }

  func testWhatIsNotAHostNameIsNotResolved() {
    let refuse: HostNameResolver.Resolve = { name in
      XCTFail("\(name) was resolved")
      return .failure(.init("no"))
    }
    HostNameResolver.$resolve.withValue(refuse) {
      for text in ["bad_name:80", "-a:80", "a..b:80", "[localhost]:80", "a b:80", "999.1.1.1:80"] {
        XCTAssertEqual(
          ListenAddress.problem(text)?.contains("is neither an IP address nor a host name"), true,
          text)
      }
    }
  }

  func testProbeTargetsAndTheReflectorTakeNames() throws {
    let configuration = try load(
      "probes: [{target: \"localhost:8620\"}, {target: \"127.0.0.2:862\", name: b}]\n"
        + "reflector: {listen: \"localhost:8621\"}\n")
    XCTAssertEqual(
      configuration.probes.map(\.target.description), ["127.0.0.1:8620", "127.0.0.2:862"])
    // A target written with a name is the peer of that name.
    XCTAssertEqual(configuration.probes.map(\.name), ["localhost", "b"])
    XCTAssertEqual(configuration.reflector.listen.description, "127.0.0.1:8621")
  }

  func testTheSystemResolverFindsLocalhost() throws {
    let addresses = try HostNameResolver.systemResolve("localhost").get()
    XCTAssertTrue(addresses.contains { $0.description == "127.0.0.1" || $0.description == "::1" })
  }
}
