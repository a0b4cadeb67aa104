import XCTest

@testable import NetQualityCore

final class LevelDamperTests: XCTestCase {
  func run(
    _ raw: [QualityLevel], worsenAfter: Int = 1, worsenOneLevelAfter: Int = 3,
    improveAfter: Int = 3, improveOneLevelAfter: Int = 30
  ) -> [QualityLevel] {
    var damper = LevelDamper()
    return raw.map {
      damper.update(
        $0, worsenAfter: worsenAfter, worsenOneLevelAfter: worsenOneLevelAfter,
        improveAfter: improveAfter, improveOneLevelAfter: improveOneLevelAfter)
    }
  }

  func testTheFirstJudgementShowsAtOnce() {
    XCTAssertEqual(run([.poor]), [.poor])
    XCTAssertEqual(run([.unknown, .bad]), [.unknown, .bad])
  }

  func testWorseShowsAtOnceBetterAfterThreeTicksInARow() {
    XCTAssertEqual(
      run([.excellent, .bad, .excellent, .excellent, .excellent, .excellent]),
      [.excellent, .bad, .bad, .bad, .excellent, .excellent])
  }

  func testABreakInTheBetterRunStartsTheCountAgain() {
    XCTAssertEqual(
      run([.bad, .good, .good, .poor, .good, .good, .good]),
      [.bad, .bad, .bad, .bad, .bad, .bad, .good])
  }

  func testASlowerWorseningWaitsItsTicks() {
    XCTAssertEqual(
      run([.excellent, .poor, .excellent, .poor, .poor], worsenAfter: 2),
      [.excellent, .excellent, .excellent, .excellent, .poor])
  }

  func testUnknownCarriesNoTrend() {
    XCTAssertEqual(run([.bad, .unknown, .excellent]), [.bad, .unknown, .excellent])
  }

  /// Issue 25: one band better is noise until it holds `improveOneLevelAfter` ticks; two bands
  /// better is a recovery after `improveAfter`.
  func testOneBandBetterWaitsItsLongerRun() {
    let shown = run(
      [.bad] + Array(repeating: .poor, count: 9) + [.bad] + Array(repeating: .poor, count: 10),
      improveOneLevelAfter: 10)
    XCTAssertEqual(Array(shown.prefix(20)), Array(repeating: .bad, count: 20))
    XCTAssertEqual(shown.last, .poor, "ten poor ticks in a row")
  }

  func testARecoveryTwoBandsBetterShowsAfterThreeTicksAsTheWorstOfThem() {
    XCTAssertEqual(
      run([.bad, .poor, .good, .excellent, .good, .excellent]),
      [.bad, .bad, .bad, .bad, .good, .good],
      "good, excellent, good: two bands better three ticks in a row, shown as good")
  }

  func testASteadyImpairmentAtABandsEdgeShowsOneLevel() {
    // Windows scattering between poor and bad (a third bad), never ten poor in a row.
    var raw: [QualityLevel] = []
    for index in 0..<300 { raw.append(index % 3 == 0 || index % 7 == 0 ? .bad : .poor) }
    let shown = run(raw, improveOneLevelAfter: 10)
    XCTAssertEqual(Set(shown), [.bad])
  }

  func testOneBandWorseWaitsThreeTicksTwoBandsShowAtOnce() {
    XCTAssertEqual(
      run([.poor, .bad, .poor, .bad, .bad, .bad]), [.poor, .poor, .poor, .poor, .poor, .bad])
    XCTAssertEqual(run([.good, .bad]), [.good, .bad])
    // A run of worse ticks shows as the mildest of them.
    XCTAssertEqual(run([.excellent, .bad, .poor], worsenAfter: 2).last, .poor)
  }
}
