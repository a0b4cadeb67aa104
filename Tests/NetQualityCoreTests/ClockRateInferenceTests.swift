import XCTest

@testable import NetQualityCore

final class ClockRateInferenceTests: XCTestCase {
  private func inference(
    rate: Double, intervalMilliseconds: Double, packets: Int, noiseMilliseconds: Double = 0
  ) -> ClockRateInference {
    var inference = ClockRateInference()
    for index in 0..<packets {
      let noise = index % 2 == 0 ? 0 : noiseMilliseconds
      let arrival = Int64((Double(index) * intervalMilliseconds + noise) * 1e6)
      let timestamp = UInt32(
        truncatingIfNeeded: Int(Double(index) * intervalMilliseconds / 1000 * rate))
      inference.add(arrivalNanoseconds: arrival, timestamp: timestamp)
    }
    return inference
  }

  func testOpusAt48kHzIsRecognised() {
    XCTAssertEqual(
      inference(rate: 48_000, intervalMilliseconds: 20, packets: 16, noiseMilliseconds: 3)
        .estimateHz(), 48_000)
  }

  func testVideoAt90kHzIsRecognised() {
    XCTAssertEqual(
      inference(rate: 90_000, intervalMilliseconds: 33.3, packets: 16, noiseMilliseconds: 5)
        .estimateHz(), 90_000)
  }

  func testNarrowbandAt8kHzIsRecognised() {
    XCTAssertEqual(
      inference(rate: 8000, intervalMilliseconds: 20, packets: 16, noiseMilliseconds: 2)
        .estimateHz(), 8000)
  }

  func testTooShortASpanGivesNoAnswer() {
    XCTAssertNil(inference(rate: 48_000, intervalMilliseconds: 20, packets: 3).estimateHz())
  }

  func testAnUnusualRateIsNotForcedOntoACandidate() {
    // 36 kHz lies between 32 and 44.1 kHz: no candidate is close enough.
    XCTAssertNil(inference(rate: 36_000, intervalMilliseconds: 20, packets: 16).estimateHz())
  }

  func testRepeatedTimestampsGiveNoAnswer() {
    var inference = ClockRateInference()
    for index in 0..<16 {
      inference.add(arrivalNanoseconds: Int64(index) * 50_000_000, timestamp: 1000)
    }
    XCTAssertNil(inference.estimateHz())
  }
}
