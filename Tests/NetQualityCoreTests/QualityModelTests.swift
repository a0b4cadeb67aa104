import XCTest

@testable import NetQualityCore

/// The band edges of docs/quality-model.md, from both sides of each.
final class QualityModelTests: XCTestCase {
  let model = QualityModel()

  func testRatingFloorsAreInclusive() {
    XCTAssertEqual(model.level(rating: 100), .excellent)
    XCTAssertEqual(model.level(rating: 80), .excellent)
    XCTAssertEqual(model.level(rating: 79.999), .good)
    XCTAssertEqual(model.level(rating: 70), .good)
    XCTAssertEqual(model.level(rating: 69.999), .poor)
    XCTAssertEqual(model.level(rating: 60), .poor)
    XCTAssertEqual(model.level(rating: 59.999), .bad)
    XCTAssertEqual(model.level(rating: 50), .bad)
    XCTAssertEqual(model.level(rating: 49.999), .veryBad)
    XCTAssertEqual(model.level(rating: 0), .veryBad)
  }

  func testJitterCeilingsAreInclusive() {
    XCTAssertEqual(model.level(jitterMilliseconds: 0), .excellent)
    XCTAssertEqual(model.level(jitterMilliseconds: 30), .excellent)
    XCTAssertEqual(model.level(jitterMilliseconds: 30.001), .good)
    XCTAssertEqual(model.level(jitterMilliseconds: 50), .good)
    XCTAssertEqual(model.level(jitterMilliseconds: 50.001), .poor)
    XCTAssertEqual(model.level(jitterMilliseconds: 100), .poor)
    XCTAssertEqual(model.level(jitterMilliseconds: 100.001), .bad)
    XCTAssertEqual(model.level(jitterMilliseconds: 150), .bad)
    XCTAssertEqual(model.level(jitterMilliseconds: 150.001), .veryBad)
  }

  func score(loss: Double, jitter: Double = 0, rtt: Double? = nil, video: Bool = false)
    -> QualityModel.Score
  {
    model.score(
      .init(
        packets: 150, lossRatio: loss, jitterMilliseconds: jitter, roundTripMilliseconds: rtt,
        isVideo: video), enoughPackets: true)
  }

  /// The loss at which G.711 audio (no RTT, no jitter) reaches each rating floor: R = 92.24 -
  /// 95 p / (p + 25.1), solved for p; just under it the level is one better than just over.
  func testLossEdgesOfAudio() throws {
    let base = 93.2 - 0.024 * 40  // R0 - Is - Id at 40 ms (20 ms buffer + 20 ms codec)
    XCTAssertEqual(try XCTUnwrap(score(loss: 0).rating), base, accuracy: 1e-9)
    let levels: [QualityLevel] = [.excellent, .good, .poor, .bad, .veryBad]
    for (index, floor) in model.ratingFloors.enumerated() {
      let impairment = base - floor
      let percent = impairment * 25.1 / (95 - impairment)
      XCTAssertEqual(score(loss: percent / 100 - 1e-6).level, levels[index], "below \(percent) %")
      XCTAssertEqual(
        score(loss: percent / 100 + 1e-6).level, levels[index + 1], "above \(percent) %")
    }
    // The documented table's rows.
    XCTAssertEqual(try XCTUnwrap(score(loss: 0.05).rating), 76.5, accuracy: 0.05)
    XCTAssertEqual(try XCTUnwrap(score(loss: 0.20).rating), 50.1, accuracy: 0.05)
    XCTAssertEqual(try XCTUnwrap(score(loss: 0.35).meanOpinionScore), 1.92, accuracy: 0.005)
  }

  func testVideoWeighsLossMore() throws {
    XCTAssertEqual(try XCTUnwrap(score(loss: 0.01, video: true).rating), 83.3, accuracy: 0.05)
    XCTAssertEqual(score(loss: 0.01, video: true).level, .excellent)
    XCTAssertEqual(score(loss: 0.03, video: true).level, .good)
    XCTAssertEqual(score(loss: 0.10, video: true).level, .veryBad)
  }

  func testDelayPastTheKneeCostsMore() throws {
    // 600 ms RTT: Ta = 300 + 20 + 20 = 340 ms, past 177.3 ms.
    let far = try XCTUnwrap(score(loss: 0, rtt: 600).rating)
    XCTAssertEqual(far, 93.2 - 0.024 * 340 - 0.11 * (340 - 177.3), accuracy: 1e-9)
    XCTAssertEqual(score(loss: 0, rtt: 600).level, .poor)
    XCTAssertEqual(try XCTUnwrap(score(loss: 0, rtt: 80).rating), 91.3, accuracy: 0.05)
  }

  func testTheWorseOfRatingAndJitterWinsAndSaysWhich() {
    let jittery = score(loss: 0, jitter: 60)
    XCTAssertEqual(jittery.level, .poor)
    XCTAssertEqual(jittery.limitedBy, .jitter)
    let lossy = score(loss: 0.10, jitter: 5)
    XCTAssertEqual(lossy.level, .poor)
    XCTAssertEqual(lossy.limitedBy, .lossDelay)
    // The jitter buffer (2 x jitter) adds to the delay only above its 20 ms minimum.
    XCTAssertEqual(score(loss: 0, jitter: 10).rating, score(loss: 0).rating)
    XCTAssertLessThan(score(loss: 0, jitter: 25).rating ?? 0, score(loss: 0).rating ?? 0)
  }

  func testTooFewPacketsIsUnknown() {
    let score = model.score(
      .init(
        packets: 9, lossRatio: 0.5, jitterMilliseconds: 0, roundTripMilliseconds: nil,
        isVideo: false), enoughPackets: false)
    XCTAssertEqual(score.level, .unknown)
    XCTAssertNil(score.rating)
  }
}
