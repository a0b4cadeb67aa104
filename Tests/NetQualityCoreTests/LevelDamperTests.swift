import XCTest

@testable import NetQualityCore

final class LevelDamperTests: XCTestCase {
  func run(_ raw: [QualityLevel], worsenAfter: Int = 1, improveAfter: Int = 3) -> [QualityLevel] {
    var damper = LevelDamper()
    return raw.map { damper.update($0, worsenAfter: worsenAfter, improveAfter: improveAfter) }
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
}
