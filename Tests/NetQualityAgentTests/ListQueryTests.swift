import Hummingbird
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// The list requests' parameters, read without a server.
final class ListQueryTests: XCTestCase {
  func testPeerContainsMatchesTheBytesAnywhereInTheName() {
    let cases: [(String, String, Bool)] = [
      ("10.0.1.97", ".9", true), ("10.0.1.97", "97", true), ("10.0.1.97", "10.0.1.97", true),
      ("10.0.1.97", "10.0.1.970", false), ("10.0.1.97", "7.", false), ("", "1", false),
      ("office-zürich", "zür", true), ("office-zürich", "zur", false),
    ]
    for (name, part, expected) in cases {
      XCTAssertEqual(RowFilter.bytes(of: name, contain: part), expected, "\(name) \(part)")
    }
  }

  func testQueryParametersBecomeTheQuery() throws {
    let query = try ListQuery(
      [
        "limit": "7", "offset": "3", "min_level": "Very_Bad", "state": "held,ended",
        "peer": "10.", "peer_contains": "9",
      ], for: .peers)
    XCTAssertEqual(query.limit, 7)
    XCTAssertEqual(query.offset, 3)
    XCTAssertEqual(query.sort, .worst)
    XCTAssertEqual(query.filter.minimumLevel, .veryBad)
    XCTAssertEqual(query.filter.states, [.held, .ended])
    XCTAssertEqual(query.filter.prefix, "10.")
    XCTAssertEqual(query.filter.contains, "9")
    XCTAssertEqual(try ListQuery([:], for: .streams), ListQuery())
  }

  func testCursorsReadBackAsMade() {
    let cursors: [PageCursor] = [
      .peers(.worst, after: PeerSortKey(first: -6, second: 3.2, name: "10.0.1.42")),
      .peers(.loss, after: PeerSortKey(first: 1, second: 0, name: "a\nb with = and /")),
      .peers(.jitter, after: PeerSortKey(first: -0, second: .infinity, name: "")),
      .streams(from: 12_345),
    ]
    for cursor in cursors {
      XCTAssertTrue(cursor.text.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) })
      XCTAssertEqual(PageCursor(text: cursor.text), cursor, cursor.text)
    }
    for text in ["", "AAAA", "cDE", "%%", PageCursor.streams(from: 1).text + "x"] {
      XCTAssertNil(PageCursor(text: text), text)
    }
  }
}
