import XCTest

@testable import NetQualityCore

/// webrtc-stats `freezeCount` / `pauseCount` as libwebrtc's VideoQualityObserver computes them.
final class FreezeDetectorTests: XCTestCase {
  private func detector(steadyIntervals: Int, milliseconds: Int64) -> FreezeDetector {
    var detector = FreezeDetector()
    for _ in 0..<steadyIntervals {
      XCTAssertEqual(detector.judge(intervalNanoseconds: milliseconds * 1_000_000), .smooth)
    }
    return detector
  }

  func testThresholdIsMaxOfThreeTimesAndAveragePlus150IncludingTheJudgedInterval() {
    // Ten intervals of 33 ms, then 200 ms: the average of the eleven is 530 / 11 = 48 (rounded
    // down), the threshold max(144, 198) = 198: a freeze.
    var freezing = detector(steadyIntervals: 10, milliseconds: 33)
    XCTAssertEqual(freezing.judge(intervalNanoseconds: 200_000_000), .freeze)
    // 190 ms: average 520 / 11 = 47, threshold 197: smooth.
    var smooth = detector(steadyIntervals: 10, milliseconds: 33)
    XCTAssertEqual(smooth.judge(intervalNanoseconds: 190_000_000), .smooth)
    // At exactly the threshold it is a freeze ("equal or exceeds"): 10 × 33 + 197 = 527,
    // average 47, threshold 197.
    var equal = detector(steadyIntervals: 10, milliseconds: 33)
    XCTAssertEqual(equal.judge(intervalNanoseconds: 197_000_000), .freeze)
  }

  func testThreeTimesTheAverageRulesAtLowFrameRates() {
    // 5 fps: 200 ms frames; ten of them and 640 ms: average 2640 / 11 = 240, threshold
    // max(720, 390) = 720: smooth; 900 ms: average 2900 / 11 = 263, threshold 789: freeze.
    var slow = detector(steadyIntervals: 10, milliseconds: 200)
    XCTAssertEqual(slow.judge(intervalNanoseconds: 640_000_000), .smooth)
    var frozen = detector(steadyIntervals: 10, milliseconds: 200)
    XCTAssertEqual(frozen.judge(intervalNanoseconds: 900_000_000), .freeze)
  }

  func testNoVerdictBeforeFiveIntervals() {
    var detector = detector(steadyIntervals: 3, milliseconds: 33)
    // The fourth interval is not judged (libwebrtc's kMinFrameSamplesToDetectFreeze = 5).
    XCTAssertEqual(detector.judge(intervalNanoseconds: 1_000_000_000), .smooth)
  }

  func testAverageIsOverTheLastThirtyIntervals() {
    var detector = detector(steadyIntervals: 40, milliseconds: 100)
    // 29 × 100 + 250 = 3150, / 30 = 105, threshold max(315, 255) = 315: smooth.
    XCTAssertEqual(detector.judge(intervalNanoseconds: 250_000_000), .smooth)
    XCTAssertEqual(detector.averageMilliseconds, 105)
  }

  func testMoreThanFiveSecondsIsAPauseNotAFreezeAndStaysOutOfTheAverage() {
    var detector = detector(steadyIntervals: 10, milliseconds: 33)
    XCTAssertEqual(detector.judge(intervalNanoseconds: 5_001_000_000), .pause)
    XCTAssertEqual(detector.averageMilliseconds, 33)
    // Exactly 5 s is not more than 5 s: a freeze.
    XCTAssertEqual(detector.judge(intervalNanoseconds: 5_000_000_000), .freeze)
  }
}
