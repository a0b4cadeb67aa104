import NetQualityConfig
import XCTest

/// Issue 40: `listen` takes one address or a list (the exporter toolkit's repeated
/// `--web.listen-address`): every one listens, the first names the agent.
final class ListenAddressesTests: XCTestCase, ConfigurationFixtures {
  func testOneAddressOrAList() throws {
    let one = try load("listen: \"127.0.0.1:9470\"\n")
    XCTAssertEqual(one.listenAddresses.map(\.description), ["127.0.0.1:9470"])
    XCTAssertEqual(one.moreListenAddresses, [])
    let two = try load("listen: [\"10.0.0.5:9470\", \"[::1]:9471\"]\n")
    XCTAssertEqual(two.listenAddresses.map(\.description), ["10.0.0.5:9470", "[::1]:9471"])
    XCTAssertEqual(two.listenHost, "10.0.0.5")
    XCTAssertEqual(two.listenPort, 9470)
  }

  func testAWrongListSaysWhichEntry() {
    XCTAssertEqual(
      issues("listen:\n  - \"127.0.0.1:9470\"\n  - \"127.0.0.1:9470\"\n"),
      ["3 listen[1]: '127.0.0.1:9470' is listed twice"])
    XCTAssertEqual(
      issues("listen:\n  - \"127.0.0.1:9470\"\n  - \"somewhere:80\"\n"),
      ["3 listen[1]: 'somewhere:80': cannot resolve 'somewhere': Name or service not known"])
    XCTAssertEqual(
      issues("listen: []\n"), ["1 listen: expected an address or a list of at least one"])
  }

  func testTheCommandLineReplacesEveryAddress() throws {
    var overrides = ConfigurationOverrides()
    overrides.listen = [ListenAddress("127.0.0.1:1"), ListenAddress("127.0.0.1:2")].compactMap {
      $0
    }
    let result = overrides.applied(
      to: try load("listen: [\"0.0.0.0:9\", \"0.0.0.0:10\", \"0.0.0.0:11\"]\n"))
    XCTAssertEqual(result.listenAddresses.map(\.description), ["127.0.0.1:1", "127.0.0.1:2"])
  }
}
