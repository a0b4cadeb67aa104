import XCTest

@testable import NetQualityProbe

final class STAMPAuthenticationTests: XCTestCase {
  typealias F = STAMPFixtures

  func testKeysShorterThan16BytesAreRefused() {
    XCTAssertNil(STAMPKey(name: "short", bytes: Array(0..<15)))
    XCTAssertNotNil(STAMPKey(name: "ok", bytes: Array(0..<16)))
    XCTAssertNotNil(STAMPKey(name: "long", bytes: Array(repeating: 7, count: 100)))
  }

  func testAnyChangedBitInTheCoveredOctetsFailsTheHMAC() throws {
    let packet = try F.sender.encoded(key: F.key)
    XCTAssertTrue(F.key.isValidHMAC(of: packet))
    for offset in [0, 3, 17, 24, 50, 95, 96, 111] {
      var tampered = packet
      tampered[offset] ^= 0x01
      XCTAssertFalse(F.key.isValidHMAC(of: tampered), "octet \(offset)")
      XCTAssertThrowsError(try STAMPSenderPacket(decoding: tampered, key: F.key)) {
        XCTAssertEqual($0 as? STAMPCodecError, .badHMAC)
      }
    }
    // Padding after the base packet is not covered.
    var padded = try F.sender.encoded(totalLength: 130, key: F.key)
    padded[120] = 0xFF
    XCTAssertTrue(F.key.isValidHMAC(of: padded))
  }

  func testAnotherKeyFailsTheHMAC() throws {
    let other = try XCTUnwrap(STAMPKey(name: "other", bytes: Array(1...16)))
    XCTAssertFalse(other.isValidHMAC(of: try F.sender.encoded(key: F.key)))
  }

  func testTooShortForAnHMACIsInvalid() {
    XCTAssertFalse(F.key.isValidHMAC(of: F.zeros(111)))
    XCTAssertFalse(F.key.isValidHMAC(of: []))
  }

  func testDescriptionNamesTheKeyNotItsBytes() {
    XCTAssertEqual(F.key.description, "STAMPKey(test)")
  }
}
