import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// Which clients' bcrypt checks go to the guessers' lane: those refused within one to two
/// generations, an IPv6 client by its /64, in bounded memory.
final class RefusedClientsTests: XCTestCase {
  func testARefusalIsRememberedForOneToTwoGenerations() throws {
    let generation = RefusedClients.generationSeconds
    var refused = RefusedClients(now: 1_000)
    let guesser = try XCTUnwrap(IPAddress("127.0.0.5"))
    let scraper = try XCTUnwrap(IPAddress("127.0.0.2"))
    refused.insert(guesser, now: 1_000)
    XCTAssertTrue(refused.contains(guesser, now: 1_000))
    XCTAssertFalse(refused.contains(scraper, now: 1_000))
    // Into the previous generation, still remembered.
    XCTAssertTrue(refused.contains(guesser, now: 1_000 + generation))
    XCTAssertTrue(refused.contains(guesser, now: 1_000 + 2 * generation - 1))
    // Two generations on, forgotten.
    XCTAssertFalse(refused.contains(guesser, now: 1_000 + 2 * generation))
    XCTAssertEqual(refused.count, 0)
    // A long quiet: both generations stale at the first look.
    refused.insert(guesser, now: 10_000)
    XCTAssertFalse(refused.contains(guesser, now: 10_000 + 5 * generation))
  }

  func testAnIPv6ClientCountsByItsSlash64() throws {
    var refused = RefusedClients(now: 0)
    refused.insert(try XCTUnwrap(IPAddress("2001:db8:1:2::5")), now: 0)
    XCTAssertTrue(refused.contains(try XCTUnwrap(IPAddress("2001:db8:1:2:ffff::9")), now: 1))
    XCTAssertFalse(refused.contains(try XCTUnwrap(IPAddress("2001:db8:1:3::5")), now: 1))
  }

  func testManyAddressesStayWithinTwoGenerations() {
    var refused = RefusedClients(now: 0)
    for value in 0..<UInt32(5 * RefusedClients.capacity) {
      refused.insert(IPAddress(ipv4: 0x0A00_0000 | value), now: 0)
    }
    XCTAssertLessThanOrEqual(refused.count, 2 * RefusedClients.capacity)
    // The newest are remembered.
    XCTAssertTrue(
      refused.contains(
        IPAddress(ipv4: 0x0A00_0000 | UInt32(5 * RefusedClients.capacity - 1)), now: 0))
  }
}
