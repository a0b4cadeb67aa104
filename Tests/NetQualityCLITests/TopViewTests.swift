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
