import XCTest

@testable import NetQualityCore

final class TickScheduleTests: XCTestCase {
  func time(_ seconds: Double) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: CaptureTime.nanoseconds(seconds))
  }

  func testTicksFallOnMultiplesOfTheInterval() {
    var schedule = TickSchedule(intervalSeconds: 2)
    XCTAssertNil(schedule.due(atOrBefore: time(101.5)))
    XCTAssertEqual(schedule.next, time(102))
    XCTAssertNil(schedule.due(atOrBefore: time(101.9)))
    XCTAssertEqual(schedule.due(atOrBefore: time(105)), time(102))
    XCTAssertEqual(schedule.due(atOrBefore: time(105)), time(104))
    XCTAssertNil(schedule.due(atOrBefore: time(105)))
    XCTAssertEqual(schedule.final(), time(106))
  }

  func testSkipJumpsOverEmptyTicks() {
    var schedule = TickSchedule(intervalSeconds: 2)
    _ = schedule.due(atOrBefore: time(100))
    let skipped = schedule.skip(to: time(1_000_001))
    XCTAssertEqual(skipped, SkippedTicks(first: time(102), last: time(1_000_000), count: 499_950))
    XCTAssertEqual(schedule.next, time(1_000_002))
    XCTAssertNil(schedule.skip(to: time(1_000_001)))
  }

  func testTheEndOfTimeStopsTheScheduleInsteadOfTrappingOrLooping() {
    var schedule = TickSchedule(intervalSeconds: 2)
    XCTAssertNil(schedule.due(atOrBefore: CaptureTime(nanosecondsSinceEpoch: .max - 10)))
    XCTAssertEqual(schedule.next, .latest)
    XCTAssertEqual(schedule.due(atOrBefore: .latest), .latest)
    XCTAssertNil(schedule.due(atOrBefore: .latest))
    XCTAssertNil(schedule.final())
  }

  func testIntervalsAreClampedToTheAcceptedRange() {
    XCTAssertEqual(TickSchedule(intervalSeconds: 1e10).intervalNanoseconds, 86_400_000_000_000)
    XCTAssertEqual(TickSchedule(intervalSeconds: 0).intervalNanoseconds, 1_000_000)
    XCTAssertEqual(TickSchedule(intervalSeconds: -.infinity).intervalNanoseconds, 1_000_000)
    XCTAssertEqual(TickSchedule(intervalSeconds: .nan).intervalNanoseconds, 2_000_000_000)
  }
}
