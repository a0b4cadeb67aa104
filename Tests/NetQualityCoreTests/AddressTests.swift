import XCTest

@testable import NetQualityCore

final class AddressTests: XCTestCase {
  func testIPv4TextRoundTrips() throws {
    let address = try XCTUnwrap(IPAddress("192.0.2.33"))
    XCTAssertTrue(address.isIPv4)
    XCTAssertEqual(address.ipv4Value, 0xC000_0221)
    XCTAssertEqual(address.description, "192.0.2.33")
  }

  func testIPv6IsWrittenPerRFC5952() throws {
    XCTAssertEqual(try XCTUnwrap(IPAddress("2001:0db8:0:0:0:0:2:1")).description, "2001:db8::2:1")
    XCTAssertEqual(
      try XCTUnwrap(IPAddress("2001:db8:0:1:1:1:1:1")).description, "2001:db8:0:1:1:1:1:1")
    XCTAssertEqual(try XCTUnwrap(IPAddress("::1")).description, "::1")
    XCTAssertEqual(try XCTUnwrap(IPAddress("fe80::")).description, "fe80::")
    XCTAssertEqual(try XCTUnwrap(IPAddress("2001:0:0:1:0:0:0:1")).description, "2001:0:0:1::1")
  }

  func testInvalidAddressesAreRejected() {
    for text in [
      "", "1.2.3", "1.2.3.256", "1.2.3.4.5", "a.b.c.d", "1::2::3", "12345::", "::g",
      "1:2:3:4:5:6:7",
    ] {
      XCTAssertNil(IPAddress(text), text)
    }
  }

  func testPrefixContainment() throws {
    let v4 = try XCTUnwrap(NetworkPrefix("10.1.0.0/16"))
    XCTAssertTrue(v4.contains(try XCTUnwrap(IPAddress("10.1.200.3"))))
    XCTAssertFalse(v4.contains(try XCTUnwrap(IPAddress("10.2.0.1"))))
    XCTAssertEqual(v4.description, "10.1.0.0/16")
    let v6 = try XCTUnwrap(NetworkPrefix("2001:db8::/32"))
    XCTAssertTrue(v6.contains(try XCTUnwrap(IPAddress("2001:db8:ffff::1"))))
    XCTAssertFalse(v6.contains(try XCTUnwrap(IPAddress("10.1.200.3"))))
    XCTAssertEqual(try XCTUnwrap(NetworkPrefix("192.0.2.7")).description, "192.0.2.7/32")
    XCTAssertNil(NetworkPrefix("10.0.0.0/33"))
    XCTAssertNil(NetworkPrefix("10.0.0.0/x"))
  }
}
