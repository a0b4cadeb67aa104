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

}
