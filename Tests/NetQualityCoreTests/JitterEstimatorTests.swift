import XCTest

@testable import NetQualityCore

final class JitterEstimatorTests: XCTestCase {
  func testConstantTransitHasZeroJitter() {
    var jitter = JitterEstimator()
    for index in 0..<100 {
      jitter.update(
        arrivalNanoseconds: 5_000_000 + Int64(index) * 20_000_000,
        timestamp: UInt32(index * 160), secondsPerTick: 1.0 / 8000, countsTowardsSummary: true)
    }
    XCTAssertEqual(jitter.jitterSeconds, 0, accuracy: 1e-12)
    XCTAssertEqual(jitter.maxJitterSeconds, 0, accuracy: 1e-12)
  }

  func testAlternatingDelayConvergesToItsAmplitude() {
    // Transit alternates between 0 and 4 ms, so |D| = 4 ms for every pair: J -> 4 ms
    // (RFC 3550 A.8, J += (|D| - J) / 16).
    var jitter = JitterEstimator()
    var expected = 0.0
    for index in 0..<400 {
      let extra: Int64 = index % 2 == 0 ? 0 : 4_000_000
      jitter.update(
        arrivalNanoseconds: Int64(index) * 20_000_000 + extra, timestamp: UInt32(index * 160),
        secondsPerTick: 1.0 / 8000, countsTowardsSummary: true)
      if index > 0 { expected += (0.004 - expected) / 16 }
    }
    XCTAssertEqual(jitter.jitterSeconds, expected, accuracy: 1e-12)
    XCTAssertEqual(jitter.jitterSeconds, 0.004, accuracy: 1e-6)
  }

  func testTimestampWrapIsHandled() {
    var jitter = JitterEstimator()
    for index in 0..<10 {
      jitter.update(
        arrivalNanoseconds: Int64(index) * 20_000_000,
        timestamp: UInt32.max - 500 &+ UInt32(index * 160), secondsPerTick: 1.0 / 8000,
        countsTowardsSummary: true)
    }
    XCTAssertEqual(jitter.maxJitterSeconds, 0, accuracy: 1e-12)
  }

  func testExcludedSamplesDoNotSetTheMaximum() {
    var jitter = JitterEstimator()
    jitter.update(
      arrivalNanoseconds: 0, timestamp: 0, secondsPerTick: 1.0 / 8000, countsTowardsSummary: true)
    jitter.update(
      arrivalNanoseconds: 500_000_000, timestamp: 160, secondsPerTick: 1.0 / 8000,
      countsTowardsSummary: false)
    XCTAssertEqual(jitter.jitterSeconds, 0.48 / 16, accuracy: 1e-9)
    XCTAssertEqual(jitter.maxJitterSeconds, 0)
    XCTAssertEqual(jitter.samples, 0)
  }
}
