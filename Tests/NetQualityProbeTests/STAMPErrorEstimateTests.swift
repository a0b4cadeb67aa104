import XCTest

@testable import NetQualityProbe

final class STAMPErrorEstimateTests: XCTestCase {
  func testBitsAreSZScaleMultiplier() {
    // RFC 4656 section 4.1.2: S(1) Z(1) Scale(6) Multiplier(8).
    let estimate = STAMPErrorEstimate(rawValue: 0b1100_0011_0000_0001)
    XCTAssertTrue(estimate.isSynchronized)
    XCTAssertEqual(estimate.timestampFormat, .ptp)
    XCTAssertEqual(estimate.scale, 3)
    XCTAssertEqual(estimate.multiplier, 1)
    XCTAssertEqual(estimate.rawValue, 0xC301)

    let unsynchronizedNTP = STAMPErrorEstimate(rawValue: 0x3FFF)
    XCTAssertFalse(unsynchronizedNTP.isSynchronized)
    XCTAssertEqual(unsynchronizedNTP.timestampFormat, .ntp)
    XCTAssertEqual(unsynchronizedNTP.scale, 63)
    XCTAssertEqual(unsynchronizedNTP.multiplier, 255)
  }

  func testEveryFieldValueRoundTrips() {
    for raw in stride(from: 0, through: 0xFFFF, by: 7) {
      XCTAssertEqual(STAMPErrorEstimate(rawValue: UInt16(raw)).rawValue, UInt16(raw))
    }
  }

  func testSecondsAreMultiplierTimesTwoToScaleMinus32() {
    XCTAssertEqual(
      STAMPErrorEstimate(isSynchronized: false, scale: 32, multiplier: 3).seconds, 3)
    XCTAssertEqual(
      STAMPErrorEstimate(isSynchronized: false, scale: 0, multiplier: 1).seconds,
      1.0 / 4_294_967_296)
    XCTAssertEqual(
      STAMPErrorEstimate(isSynchronized: false, scale: 22, multiplier: 128).seconds,
      128.0 / 1_024)
  }

  func testFromSecondsPicksTheSmallestScaleAndRoundsUp() {
    // 1 ms = 4,294,967.296 units of 2^-32 s; 2^15 is the smallest scale that brings it under
    // 256: 131.07 → 132.
    let millisecond = STAMPErrorEstimate(seconds: 0.001, isSynchronized: true)
    XCTAssertEqual(millisecond.scale, 15)
    XCTAssertEqual(millisecond.multiplier, 132)
    XCTAssertGreaterThanOrEqual(millisecond.seconds, 0.001)
    XCTAssertLessThan(millisecond.seconds, 0.001 * (1 + 1.0 / 128))
    XCTAssertTrue(millisecond.isSynchronized)
    XCTAssertEqual(millisecond.rawValue, 0x8F84)

    // Exactly representable values stay exact.
    let oneSecond = STAMPErrorEstimate(seconds: 1, isSynchronized: false)
    XCTAssertEqual(oneSecond.seconds, 1)
    XCTAssertEqual(oneSecond.scale, 25)
    XCTAssertEqual(oneSecond.multiplier, 128)

    for seconds in [1e-9, 3.7e-6, 0.02, 0.5, 17, 3_600, 1e9] {
      let estimate = STAMPErrorEstimate(seconds: seconds, isSynchronized: false)
      XCTAssertGreaterThanOrEqual(estimate.seconds, seconds, "\(seconds)")
      XCTAssertTrue(estimate.isValid)
      if estimate.scale > 0 {
        // One scale smaller would not fit in 8 bits.
        XCTAssertGreaterThan(seconds * 4_294_967_296 / Double(1 << (estimate.scale - 1)), 255)
      }
    }
  }

  func testMultiplierIsNeverZero() {
    for seconds in [0, -1, 1e-12, -Double.infinity] {
      let estimate = STAMPErrorEstimate(seconds: seconds, isSynchronized: false)
      XCTAssertEqual(estimate.scale, 0)
      XCTAssertEqual(estimate.multiplier, 1)
    }
    XCTAssertFalse(STAMPErrorEstimate(rawValue: 0x8000).isValid)
  }

  func testHugeOrNaNSaturatesAtTheLargestEstimate() {
    for seconds in [1e30, Double.infinity, Double.nan] {
      let estimate = STAMPErrorEstimate(seconds: seconds, isSynchronized: false)
      XCTAssertEqual(estimate.scale, 63)
      XCTAssertEqual(estimate.multiplier, 255)
    }
  }

  func testZFlagFollowsTheTimestampFormat() {
    let ptp = STAMPErrorEstimate(seconds: 0.001, isSynchronized: false, timestampFormat: .ptp)
    XCTAssertEqual(ptp.rawValue & 0xC000, 0x4000)
    XCTAssertEqual(STAMPErrorEstimate(rawValue: ptp.rawValue), ptp)
  }
}
