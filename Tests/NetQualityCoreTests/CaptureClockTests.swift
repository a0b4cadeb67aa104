import XCTest

@testable import NetQualityCore

final class CaptureClockTests: XCTestCase {
  let second: Int64 = 1_000_000_000
  let hour: Int64 = 3_600_000_000_000
  let start: Int64 = 1_795_306_142_000_000_000

  func corrected(_ times: [Int64], clock: inout CaptureClock) -> [Int64] {
    times.map { clock.correct(CaptureTime(nanosecondsSinceEpoch: $0)).nanosecondsSinceEpoch }
  }

  func testOrderedTimesPassUnchanged() {
    var clock = CaptureClock()
    let times = (0..<100).map { start + Int64($0) * 20_000_000 }
    XCTAssertEqual(corrected(times, clock: &clock), times)
    XCTAssertEqual(clock.steps, 0)
    XCTAssertEqual(clock.outOfOrderTimestamps, 0)
  }

  func testReorderingWithinTheToleranceIsKept() {
    var clock = CaptureClock()
    let times = [start, start + 500_000_000, start + 100_000_000, start + 600_000_000]
    XCTAssertEqual(corrected(times, clock: &clock), times)
    XCTAssertEqual(clock.outOfOrderTimestamps, 0)
  }

  func testOnePacketStampedAnHourEarlyIsPlacedInArrivalOrder() {
    var clock = CaptureClock()
    let times = [start, start + 20_000_000, start - hour, start + 40_000_000, start + 60_000_000]
    XCTAssertEqual(
      corrected(times, clock: &clock),
      [start, start + 20_000_000, start + 20_000_000, start + 40_000_000, start + 60_000_000])
    XCTAssertEqual(clock.outOfOrderTimestamps, 1)
    XCTAssertEqual(clock.steps, 0)
    XCTAssertEqual(clock.offsetNanoseconds, 0)
  }

  func testAClockSteppingBackYearsIsFollowedWithoutAJump() {
    var clock = CaptureClock()
    let years = 3 * 365 * 24 * hour
    let before = (0..<10).map { start + Int64($0) * 20_000_000 }
    let after = (0..<10).map { start - years + Int64($0) * 20_000_000 }
    let result = corrected(before + after, clock: &clock)
    XCTAssertEqual(clock.steps, 1)
    XCTAssertEqual(clock.outOfOrderTimestamps, 0)
    // Time flows on from the last packet before the step, 20 ms apart as stamped.
    let last = before.last ?? 0
    XCTAssertEqual(Array(result[10...]), (0..<10).map { last + Int64($0) * 20_000_000 })
    XCTAssertEqual(result, result.sorted())
  }

  func testAJumpForwardIsTimePassing() {
    var clock = CaptureClock()
    let times = [start, start + 10 * 365 * 24 * hour, start + 10 * 365 * 24 * hour + second]
    XCTAssertEqual(corrected(times, clock: &clock), times)
    XCTAssertEqual(clock.steps, 0)
  }

  func testExtremeTimesAreClampedIntoRange() {
    var clock = CaptureClock()
    let result = corrected([.min, 0, .max, .max, 0, 0], clock: &clock)
    XCTAssertEqual(Array(result[0...3]), [0, 0, .max, .max])
    // Back from the end of time: one step, and time stays at the end instead of wrapping.
    XCTAssertEqual(Array(result[4...]), [.max, .max])
    XCTAssertEqual(clock.steps, 1)
  }

  func testAWallClockReadingBehindThePacketsShiftsTheTickAndThePacketsAfterIt() {
    var clock = CaptureClock()
    _ = corrected([start, start + second], clock: &clock)
    // The host's clock stepped back an hour: the tick's reading says so.
    let boundary = CaptureTime(nanosecondsSinceEpoch: start - hour + 2 * second)
    let tick = clock.correctTick(
      boundary, reading: CaptureTime(nanosecondsSinceEpoch: start - hour + 2 * second))
    XCTAssertEqual(clock.steps, 1)
    XCTAssertEqual(clock.offsetNanoseconds, hour - second)
    XCTAssertEqual(tick.nanosecondsSinceEpoch, start + second)
    XCTAssertEqual(
      corrected([start - hour + 3 * second], clock: &clock), [start + 2 * second])
  }

  /// Issue 31: a tick that woke 10 s late (a stopped process) closes its boundary on the
  /// grid, behind packets stamped up to now; that is not the clock stepping back.
  func testALateTickBehindThePacketsIsNotAStep() {
    var clock = CaptureClock()
    let boundary = start - start % (2 * second) + 2 * second
    let packets = (0..<600).map { boundary - 2 * second + Int64($0) * 20_000_000 }
    _ = corrected(packets, clock: &clock)
    let reading = CaptureTime(nanosecondsSinceEpoch: (packets.last ?? 0) + 5_000_000)
    let tick = clock.correctTick(CaptureTime(nanosecondsSinceEpoch: boundary), reading: reading)
    XCTAssertEqual(tick.nanosecondsSinceEpoch, boundary, "on the grid, not moved")
    XCTAssertEqual(clock.steps, 0)
    XCTAssertEqual(clock.offsetNanoseconds, 0)
    // The packets after it keep their own times.
    let next = (packets.last ?? 0) + 20_000_000
    XCTAssertEqual(corrected([next], clock: &clock), [next])
  }
}
