import XCTest

@testable import netquality

/// `top` draws whatever the server sends: levels outside the scale are shown, not indexed.
final class TopViewTests: XCTestCase {
  func testLevelsOutsideTheScaleAreShownAsNumbers() {
    var view = TopView(color: false)
    view.hostRx = 99
    view.hostTx = -3
    view.rows = [
      TopView.Row(
        peer: "192.0.2.9", state: "connected", rx: 7, tx: Int.min, mos: nil, loss: nil,
        jitter: nil, rtt: nil, source: "probe")
    ]
    let lines = view.render(size: (rows: 20, columns: 120))
    XCTAssertTrue(lines[0].contains("host rx level 99 tx level -3"), lines[0])
    let row = lines.first { $0.hasPrefix("192.0.2.9") } ?? ""
    XCTAssertTrue(row.contains("level 7"), row)
    XCTAssertTrue(row.hasSuffix("  probe"), row)
    XCTAssertEqual(TopView.levelName(5), "very_bad")
  }

  func testAsksTheAgentForTheRowsThatFitInItsOrderAndFilter() {
    var view = TopView(color: false)
    // 30 lines less the title, keys, level counts and column names.
    XCTAssertEqual(view.requestPath(rows: 30), "/api/v1/peers?limit=26&sort=worst")
    XCTAssertEqual(view.requestPath(rows: 3), "/api/v1/peers?limit=1&sort=worst")
    XCTAssertEqual(view.requestPath(rows: 5000), "/api/v1/peers?limit=1000&sort=worst")
    for (key, sort) in [("o", "loss"), ("j", "jitter"), ("p", "name"), ("l", "worst")] {
      XCTAssertTrue(view.handle(UInt8(ascii: Unicode.Scalar(key) ?? "?")))
      XCTAssertEqual(view.requestPath(rows: 30), "/api/v1/peers?limit=26&sort=\(sort)")
    }
    for key in Array("/10.0 &é".utf8) + [13] { XCTAssertTrue(view.handle(key)) }
    // Typed bytes outside ASCII are dropped by the line editor; the rest is encoded.
    XCTAssertEqual(view.filter, "10.0 &")
    XCTAssertEqual(
      view.requestPath(rows: 30), "/api/v1/peers?limit=26&sort=worst&peer_contains=10.0%20%26")
  }

  func testShowsTheAgentsCountsAndKeepsItsOrder() throws {
    var view = TopView(color: false)
    try view.apply(
      """
      {"time":1767225600,"host":{"tx_quality":6,"rx_quality":3},"sort":"worst","total":250,
      "matched":202,"offset":0,"limit":2,"next_cursor":"x",
      "levels":{"rx":{"unknown":36,"excellent":36,"good":0,"poor":36,"bad":0,"very_bad":0,"down":35},
      "tx":{"unknown":0,"excellent":0,"good":0,"poor":0,"bad":0,"very_bad":0,"down":202}},
      "peers":[{"peer":"10.0.1.94","state":"connected","rx_quality":5,"tx_quality":6,"mos":3.2},
      {"peer":"10.0.1.42","state":"connected","rx_quality":2,"tx_quality":6,"mos":3.2}]}
      """)
    let lines = view.render(size: (rows: 10, columns: 200))
    XCTAssertTrue(lines[0].contains("peers 202/250  sort: level"), lines[0])
    XCTAssertEqual(
      lines[2], "rx: excellent 36  poor 36  down 35  unknown 36   tx: down 202")
    // The agent's order (worst, then MOS, then name), not re-sorted here.
    XCTAssertEqual(lines.dropFirst(4).map { String($0.prefix(9)) }, ["10.0.1.94", "10.0.1.42"])
    XCTAssertThrowsError(try view.apply("[]"))
  }

  func testTheRowsOfAnAgentThatDoesNotPageAreSortedAndFilteredHere() throws {
    var view = TopView(color: false)
    view.filter = "0.2"
    try view.apply(
      """
      {"time":1767225600,"host":{"tx_quality":1,"rx_quality":1},
      "peers":[{"peer":"192.0.2.9","state":"connected","rx_quality":1,"tx_quality":1},
      {"peer":"192.0.2.7","state":"connected","rx_quality":4,"tx_quality":1},
      {"peer":"198.51.100.1","state":"connected","rx_quality":6,"tx_quality":6}]}
      """)
    XCTAssertNil(view.total)
    XCTAssertEqual(view.shownRows.map(\.peer), ["192.0.2.7", "192.0.2.9"])
    let lines = view.render(size: (rows: 10, columns: 200))
    XCTAssertTrue(lines[0].contains("peers 3  sort: level"), lines[0])
    XCTAssertEqual(lines[2], "rx: -   tx: -")
  }
}

/// What the agent's API says reaches the terminal only as text: names escaped.
final class TopTerminalSafetyTests: XCTestCase {
  /// A peer named to retitle the window (OSC 0), write the clipboard (OSC 52), return the
  /// cursor and overwrite the row (CR), and the C1 CSI; a state and source alike.
  static let answer = #"""
    {"time":1767225600,"host":{"tx_quality":1,"rx_quality":1},"total":1,"matched":1,
    "peers":[{"peer":"evil\u001b]0;pwned\u0007\u001b]52;c;aGVsbG8=\u0007\r\u009b2J","state":"connected\u001b[2J",
    "rx_quality":1,"tx_quality":4,"mos":4.1,"sources":["rtp\u0007"]}]}
    """#

  /// The terminal's control characters other than the SGR colour codes top writes itself
  /// (ESC [ digits m).
  static func foreignControls(_ line: String) -> [String] {
    var found: [String] = []
    let scalars = Array(line.unicodeScalars)
    var index = 0
    while index < scalars.count {
      let value = scalars[index].value
      if value == 0x1B, index + 1 < scalars.count, scalars[index + 1] == "[" {
        var end = index + 2
        while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
        if end < scalars.count, scalars[end] == "m" {
          index = end + 1
          continue
        }
      }
      if value < 0x20 || (0x7F...0x9F).contains(value) {
        found.append("U+" + String(value, radix: 16))
      }
      index += 1
    }
    return found
  }

  func testHostileNamesFromTheAPIAreShownEscaped() throws {
    for color in [false, true] {
      var view = TopView(color: color)
      try view.apply(Self.answer)
      view.error = "http://127.0.0.1:9470: unexpected answer: HTTP/1.1 500 \u{1B}]52;c;eA==\u{07}"
      let lines = view.render(size: (rows: 20, columns: 300))
      for line in lines {
        XCTAssertEqual(Self.foreignControls(line), [], line)
      }
      let row = try XCTUnwrap(lines.first { $0.hasPrefix("evil") })
      XCTAssertTrue(row.hasPrefix("evil\\x1B]0;pwned\\x07\\x1 "), row)
      XCTAssertTrue(row.contains("connected\\x1 "), row)
      XCTAssertTrue(row.hasSuffix("rtp\\x07"), row)
      XCTAssertTrue(
        lines.contains(
          "! http://127.0.0.1:9470: unexpected answer: HTTP/1.1 500 \\x1B]52;c;eA==\\x07"))
    }
  }
}
