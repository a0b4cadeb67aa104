import XCTest

@testable import NetQualityExport

/// One way to print a round trip or a jitter, microseconds below a millisecond (issue 26).
final class DurationTextTests: XCTestCase {
  func testBelowAMillisecondIsWholeMicroseconds() {
    XCTAssertEqual(DurationText.milliseconds(0.086), "86 µs")
    XCTAssertEqual(DurationText.milliseconds(0.3), "300 µs")
    XCTAssertEqual(DurationText.milliseconds(0.0004), "0 µs")
    XCTAssertEqual(DurationText.milliseconds(0), "0 µs")
    XCTAssertEqual(DurationText.milliseconds(0.9994), "999 µs")
  }

  func testFromAMillisecondIsMilliseconds() {
    // 999.6 µs rounds to a whole millisecond: said in milliseconds, never "1000 µs".
    XCTAssertEqual(DurationText.milliseconds(0.9996), "1.0 ms")
    XCTAssertEqual(DurationText.milliseconds(1), "1.0 ms")
    XCTAssertEqual(DurationText.milliseconds(30.04), "30.0 ms")
    XCTAssertEqual(DurationText.milliseconds(40.125, places: 3), "40.125 ms")
    XCTAssertEqual(DurationText.milliseconds(150, places: 0), "150 ms")
  }

  func testNilAndSeconds() {
    XCTAssertEqual(DurationText.milliseconds(nil), "-")
    XCTAssertEqual(DurationText.seconds(0.000_086), "86 µs")
    XCTAssertEqual(DurationText.seconds(0.0123), "12.3 ms")
  }

  /// The dashboard's row of a probed same-host peer: 86 µs, not 0.1 ms or 0.0 ms.
  func testDashboardAndStatusPageUseIt() {
    XCTAssertEqual(StatusPage.milliseconds(0.086), "86 µs")
    XCTAssertEqual(StatusPage.milliseconds(nil), "-")
  }
}
