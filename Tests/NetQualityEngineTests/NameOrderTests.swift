import XCTest

@testable import NetQualityCore

/// The tick's streams are grouped by their peer's name through a key of the name's bytes
/// (`NameOrder`): the order must be `String`'s, whatever the names.
final class NameOrderTests: XCTestCase {
  /// What the scorer sorted before: by `String`, then by position.
  private func stringOrder(_ names: [String]) -> [Int] {
    names.indices.sorted { (names[$0], $0) < (names[$1], $1) }
  }

  func testAddressesSortAsStrings() {
    var generator = SystemRandomNumberGenerator()
    var names: [String] = []
    for _ in 0..<5_000 {
      let octets = (0..<4).map { _ in String(UInt8.random(in: 0...255, using: &generator)) }
      names.append(octets.joined(separator: "."))
    }
    // IPv6 of every length around the key's 32 bytes, and duplicates (a peer's two streams).
    for length in 1...40 {
      names.append(String(repeating: "f", count: length))
      names.append("2001:db8::" + String(repeating: "a", count: length))
    }
    names += names.prefix(500)
    XCTAssertEqual(NameOrder.sortedPositions(names), stringOrder(names))
  }

  func testPrefixesLongNamesAndNonASCIIKeepStringOrder() {
    let names = [
      "10.0.0.1", "10.0.0.10", "10.0.0.1", "10.0.0", "", "a\u{0}", "a", "a\u{0}b",
      "sfu-frankfurt-01", "sfu-frankfurt-01-backup-relay-number-two", "sfu-frankfurt-01-backup",
      "café", "cafe", "cafe\u{301}", "Zürich", "zebra", "Zebra", "0123456789abcdef0123456789abcdef",
      "0123456789abcdef0123456789abcdeg", "0123456789abcdef0123456789abcdef0", "ü", "~",
    ]
    XCTAssertEqual(NameOrder.sortedPositions(names), stringOrder(names))
    XCTAssertEqual(NameOrder.sortedPositions(names.reversed()), stringOrder(names.reversed()))
  }

  func testEqualNamesKeepTheirPositions() {
    let names = ["b", "a", "b", "a", "b"]
    XCTAssertEqual(NameOrder.sortedPositions(names), [1, 3, 0, 2, 4])
  }

  /// The order of the tick before is a hint only: right, stale, garbage or claimed twice, the
  /// order is `String`'s.
  func testThePreviousOrderChangesNothingButTheTime() {
    var generator = SystemRandomNumberGenerator()
    let names = (0..<3_000).map { _ in
      "10.\(UInt8.random(in: 0...3, using: &generator)).\(UInt8.random(in: 0...255, using: &generator)).1"
    }
    let expected = stringOrder(names)
    var rankOf = [Int32](repeating: -1, count: names.count)
    for (rank, position) in expected.enumerated() { rankOf[position] = Int32(rank) }
    let hints: [(String, (Int) -> Int32, Int)] = [
      ("the right order", { rankOf[$0] }, names.count),
      ("a third new", { $0 % 3 == 0 ? -1 : rankOf[$0] }, names.count),
      ("the reverse", { Int32(names.count - 1) - rankOf[$0] }, names.count),
      ("out of range", { rankOf[$0] * 7 - 500 }, names.count),
      ("all claiming one rank", { _ in 5 }, names.count),
      ("random", { _ in Int32.random(in: -2...3_100, using: &generator) }, 3_000),
      ("no ranks", { rankOf[$0] }, 0),
    ]
    for (label, hint, count) in hints {
      let order = NameOrder.sortedPositions(names, previousRanks: hint, rankCount: count)
      XCTAssertTrue(order == expected, "\(label): \(order.count) positions, not String's order")
    }
  }
}
