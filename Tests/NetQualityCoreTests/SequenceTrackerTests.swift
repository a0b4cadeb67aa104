import XCTest

@testable import NetQualityCore

final class SequenceTrackerTests: XCTestCase {
  private func track(_ sequence: [Int]) -> SequenceTracker {
    var tracker = SequenceTracker()
    for number in sequence { tracker.record(UInt16(truncatingIfNeeded: number)) }
    return tracker
  }

  func testInOrderStreamHasNoLoss() {
    let tracker = track(Array(100..<300))
    XCTAssertEqual(tracker.expected, 200)
    XCTAssertEqual(tracker.lost, 0)
    XCTAssertEqual(tracker.duplicates, 0)
    XCTAssertEqual(tracker.latePackets, 0)
    XCTAssertTrue(tracker.isValidated)
  }

  func testGapsCountAsLossAndLongestBurst() {
    // 10 lost in one burst of 4 and three single losses.
    var sequence = Array(0..<1000)
    sequence.removeAll { [100, 101, 102, 103, 300, 500, 700].contains($0) }
    sequence.removeAll { (800..<803).contains($0) }
    let tracker = track(sequence)
    XCTAssertEqual(tracker.expected, 1000)
    XCTAssertEqual(tracker.lost, 10)
    XCTAssertEqual(tracker.longestLossBurstIncludingWindow, 4)
  }

  func testSequenceWrapDoesNotCountLoss() {
    let tracker = track(Array(65_000..<66_000))
    XCTAssertEqual(tracker.expected, 1000)
    XCTAssertEqual(tracker.lost, 0)
    XCTAssertEqual(tracker.restarts, 0)
    XCTAssertEqual(tracker.extendedHighest, 65_999)
  }

  func testDuplicatesNeverMakeLossNegative() {
    // Every tenth packet twice (99 of them, 500 is lost): Wireshark would report 1 - 99 = -98.
    var sequence: [Int] = []
    for number in 0..<1000 where number != 500 {
      sequence.append(number)
      if number % 10 == 0 { sequence.append(number) }
    }
    let tracker = track(sequence)
    XCTAssertEqual(tracker.duplicates, 99)
    XCTAssertEqual(tracker.lost, 1)
  }

  func testReorderedPacketsAreLateNotLost() {
    var sequence = Array(0..<100)
    sequence.swapAt(10, 11)  // 10 late
    sequence.swapAt(50, 53)  // 53, 51, 52, 50: three late
    let tracker = track(sequence)
    XCTAssertEqual(tracker.lost, 0)
    XCTAssertEqual(tracker.latePackets, 4)
    XCTAssertEqual(tracker.duplicates, 0)
    XCTAssertEqual(tracker.longestLossBurstIncludingWindow, 0)
  }

  func testLateDuplicateIsADuplicate() {
    let tracker = track([1, 2, 3, 4, 5, 3, 6])
    XCTAssertEqual(tracker.duplicates, 1)
    XCTAssertEqual(tracker.latePackets, 0)
    XCTAssertEqual(tracker.lost, 0)
  }

  func testRestartAfterLargeJumpResynchronises() {
    // RFC 3550 A.1: a jump beyond MAX_DROPOUT followed by a sequential packet is a restart.
    let tracker = track(Array(100..<200) + Array(40_000..<40_100))
    XCTAssertEqual(tracker.restarts, 1)
    XCTAssertEqual(tracker.expected, 200)
    XCTAssertEqual(tracker.lost, 0)
    XCTAssertEqual(tracker.latePackets, 0)
  }

  func testSingleStrayPacketIsNotARestart() {
    let tracker = track(Array(100..<150) + [30_000] + Array(150..<200))
    XCTAssertEqual(tracker.restarts, 0)
    XCTAssertEqual(tracker.expected, 100)
    XCTAssertEqual(tracker.lost, 0)
    XCTAssertEqual(tracker.latePackets, 1)
  }

  /// RFC 3550 A.1 accepts a packet up to MAX_MISORDER (100) behind the highest as late; the
  /// received-packet window must reach that far, so such a packet fills its gap, a second copy
  /// is a duplicate, and one 101 behind is a stray that fills nothing.
  func testLateAndDuplicatePacketsAtTheMisorderLimit() {
    var sequence = Array(0..<250)
    sequence.removeAll { $0 == 149 || $0 == 150 }
    let tracker = track(sequence + [149, 149, 148] + Array(250..<400))
    XCTAssertEqual(tracker.expected, 400)
    XCTAssertEqual(tracker.lost, 1)  // 150
    XCTAssertEqual(tracker.duplicates, 1)  // the second 149
    XCTAssertEqual(tracker.latePackets, 2)  // 149 (filled its slot), 148 (101 behind)
    XCTAssertEqual(tracker.longestLossBurstIncludingWindow, 1)
  }

  func testLossBurstLongerThanWindow() {
    let tracker = track(Array(0..<10) + Array(2010..<2020))
    XCTAssertEqual(tracker.lost, 2000)
    XCTAssertEqual(tracker.longestLossBurstIncludingWindow, 2000)
  }

  func testProbationNeedsTwoSequentialPackets() {
    var tracker = SequenceTracker()
    tracker.record(7)
    XCTAssertFalse(tracker.isValidated)
    tracker.record(9)
    XCTAssertFalse(tracker.isValidated)
    tracker.record(10)
    XCTAssertTrue(tracker.isValidated)
  }
}
