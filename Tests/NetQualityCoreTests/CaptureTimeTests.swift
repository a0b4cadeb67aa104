import XCTest

@testable import NetQualityCore

final class CaptureTimeTests: XCTestCase {
  func testRFC3339IsUTCWithMilliseconds() {
    XCTAssertEqual(CaptureTime(seconds: 0, nanoseconds: 0).rfc3339, "1970-01-01T00:00:00.000Z")
    XCTAssertEqual(
      CaptureTime(seconds: 951_782_400, nanoseconds: 5_000_000).rfc3339, "2000-02-29T00:00:00.005Z")
    XCTAssertEqual(
      CaptureTime(seconds: 1_795_306_142, nanoseconds: 999_999_999).rfc3339,
      "2026-11-22T00:09:02.999Z")
    XCTAssertEqual(
      CaptureTime(nanosecondsSinceEpoch: -1_000_000_000).rfc3339, "1969-12-31T23:59:59.000Z")
    XCTAssertEqual(CaptureTime.latest.rfc3339, "2262-04-11T23:47:16.854Z")
  }

  func testHeaderTimesClampInsteadOfWrapping() {
    // A pcapng timestamp of 2^64 - 1 microseconds is 1.8e13 seconds: beyond Int64 nanoseconds.
    XCTAssertEqual(CaptureTime(seconds: 18_446_744_073_709, nanoseconds: 551_615_000), .latest)
    XCTAssertEqual(CaptureTime(seconds: 9_223_372_036, nanoseconds: 854_775_807), .latest)
    XCTAssertEqual(
      CaptureTime(seconds: 9_223_372_036, nanoseconds: 854_775_806).nanosecondsSinceEpoch,
      Int64.max - 1)
    XCTAssertEqual(CaptureTime(seconds: 9_223_372_036, nanoseconds: 999_999_999), .latest)
    XCTAssertEqual(CaptureTime(seconds: -5, nanoseconds: 0), .zero)
    XCTAssertEqual(CaptureTime(seconds: .min, nanoseconds: .min), .zero)
  }

  func testDifferencesOfAnyTwoTimesDoNotTrap() {
    let early = CaptureTime(nanosecondsSinceEpoch: .min)
    XCTAssertEqual(CaptureTime.latest.seconds(since: early), 1.8446744073709552e10, accuracy: 1)
    XCTAssertEqual(early.seconds(since: .latest), -1.8446744073709552e10, accuracy: 1)
    XCTAssertEqual(
      CaptureTime(nanosecondsSinceEpoch: 3_500_000_000).seconds(since: .zero), 3.5)
  }

  func testShiftsSaturate() {
    XCTAssertEqual(CaptureTime.latest.advanced(bySeconds: 12), .latest)
    XCTAssertEqual(
      CaptureTime.zero.advanced(bySeconds: -1e30).nanosecondsSinceEpoch, Int64.min)
    XCTAssertEqual(CaptureTime.zero.advanced(bySeconds: 1e30), .latest)
    XCTAssertEqual(CaptureTime.zero.advanced(bySeconds: .nan), .zero)
    XCTAssertEqual(CaptureTime.zero.advanced(bySeconds: 1.5).nanosecondsSinceEpoch, 1_500_000_000)
    XCTAssertEqual(CaptureTime.nanoseconds(9.3e9), .max)
    XCTAssertEqual(CaptureTime.nanoseconds(-.infinity), .min)
  }
}
