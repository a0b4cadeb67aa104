import Foundation
import XCTest

@testable import NetQualityProbe

final class STAMPKeyFileTests: XCTestCase {
  func testNamedAndBareKeysWithCommentsAndBlankLines() throws {
    let keys = try STAMPKeyFile.parse(
      """
      # lab keys

      lab-2025   00112233445566778899AABBCCDDEEFF
      \t0f1e2d3c4b5a69788796a5b4c3d2e1f0\r
      """, path: "keys.txt")
    XCTAssertEqual(keys.map(\.name), ["lab-2025", "line 4"])
    let message = try STAMPFixtures.sender.encoded(key: keys[1])
    let expected = try XCTUnwrap(
      STAMPKey(
        name: "x",
        bytes: [
          0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1,
          0xf0,
        ]))
    XCTAssertTrue(expected.isValidHMAC(of: message))
  }

  func testShortKeyIsRefusedWithoutShowingIt() {
    XCTAssertThrowsError(
      try STAMPKeyFile.parse("weak 00112233445566778899aabbccddee\n", path: "keys.txt")
    ) { error in
      let text = String(describing: error)
      XCTAssertEqual(
        text, "key file keys.txt line 1: key weak has 15 bytes; at least 16 (128 bits) are needed")
      XCTAssertFalse(text.contains("0011"))
    }
  }

  func testMalformedLinesNameTheLine() {
    let cases: [(String, String)] = [
      ("a b c\n", "key file k line 1: expected NAME HEXKEY or HEXKEY, found 3 fields"),
      (
        "\nname 0g112233445566778899aabbccddeeff\n",
        "key file k line 2: key name is not an even number of hexadecimal digits"
      ),
      (
        "name 0112233445566778899aabbccddeeff\n",
        "key file k line 1: key name is not an even number of hexadecimal digits"
      ),
      ("# nothing\n\n", "key file k holds no keys"),
      (
        "a 00112233445566778899aabbccddeeff\na 00112233445566778899aabbccddeeff\n",
        "key file k line 2: key name a is used twice"
      ),
    ]
    for (text, message) in cases {
      XCTAssertThrowsError(try STAMPKeyFile.parse(text, path: "k")) {
        XCTAssertEqual(String(describing: $0), message)
      }
    }
  }

  func testTooManyKeysAreRefused() {
    let text = (0...STAMPKeyFile.maximumKeys).map {
      "k\($0) " + String(repeating: "ab", count: 16)
    }.joined(separator: "\n")
    XCTAssertThrowsError(try STAMPKeyFile.parse(text, path: "k")) {
      XCTAssertEqual(
        String(describing: $0),
        "key file k holds 17 keys; at most 16 (each is tried on every packet)")
    }
  }

  func testBytesMustBeUTF8Text() throws {
    XCTAssertThrowsError(try STAMPKeyFile.parse(bytes: [0x6B, 0x20, 0xFF, 0x0A], path: "k")) {
      XCTAssertEqual(String(describing: $0), "cannot read key file k: not UTF-8 text")
    }
    let keys = try STAMPKeyFile.parse(
      bytes: Array("k 000102030405060708090a0b0c0d0e0f\n".utf8), path: "k")
    XCTAssertEqual(keys.map(\.name), ["k"])
    XCTAssertTrue(keys[0].isValidHMAC(of: try STAMPFixtures.sender.encoded(key: STAMPFixtures.key)))
  }
}
