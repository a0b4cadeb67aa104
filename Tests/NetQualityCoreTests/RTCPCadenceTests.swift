import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class RTCPCadenceTests: XCTestCase {
  func time(_ seconds: Double) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_700_000_000_000_000_000 + CaptureTime.nanoseconds(seconds))
  }

  func testTheRegularCadenceIsAssumedUntilASecondReport() {
    var cadence = RTCPCadence(first: time(0))
    XCTAssertNil(cadence.meanIntervalSeconds)
    XCTAssertEqual(cadence.allowanceSeconds, 7.5)
    cadence.record(time(5))
    XCTAssertEqual(cadence.meanIntervalSeconds, 5)
    XCTAssertEqual(cadence.allowanceSeconds, 10)
    XCTAssertEqual(cadence.last, time(5))
  }

  /// RFC 3550 section 6.3.1: intervals uniform over [0.5, 1.5] × 5 s. Whatever the draw, the
  /// allowance from the second report on covers the longest interval the rule can give.
  func testTheAllowanceCoversEveryRandomisedInterval() {
    for seed in UInt64(1)...200 {
      var random = SplitMix64(seed: seed)
      var cadence = RTCPCadence(first: time(0))
      var now = 0.0
      var longest = 0.0
      for _ in 0..<20 {
        let interval = 2.5 + Double(random.next() % 5_000_001) / 1_000_000
        now += interval
        longest = max(longest, interval)
        cadence.record(time(now))
        XCTAssertGreaterThanOrEqual(cadence.allowanceSeconds, 7.5, "seed \(seed)")
      }
      // Not by much: the allowance stays within twice the longest ordinary interval.
      XCTAssertLessThanOrEqual(cadence.allowanceSeconds, 2 * 7.5, "seed \(seed)")
    }
  }

  func testAFasterCadenceShortensTheAllowance() throws {
    var cadence = RTCPCadence(first: time(0))
    var now = 0.0
    for _ in 0..<5 {
      now += 5
      cadence.record(time(now))
    }
    XCTAssertEqual(cadence.allowanceSeconds, 10, accuracy: 1e-9)
    // Feedback every 100 ms (RFC 4585) for 10 s.
    for _ in 0..<100 {
      now += 0.1
      cadence.record(time(now))
    }
    XCTAssertLessThan(cadence.allowanceSeconds, 0.5)
  }

  func testAnEarlierOrRepeatedTimeChangesNothing() {
    var cadence = RTCPCadence(first: time(10))
    cadence.record(time(10))
    cadence.record(time(9))
    XCTAssertNil(cadence.meanIntervalSeconds)
    XCTAssertEqual(cadence.last, time(10))
  }
}
