import XCTest

@testable import NetQualityCore

/// The analyzer's forgotten slots as one bit a slot (`SlotSet`): the same answers as a
/// `Set<Int>` through inserts and removals across word boundaries.
final class SlotSetTests: XCTestCase {
  func testItAnswersAsASetDoes() {
    var generator = SystemRandomNumberGenerator()
    var slots = SlotSet()
    var reference = Set<Int>()
    for _ in 0..<20_000 {
      let slot = Int.random(in: 0..<3_000, using: &generator)
      if Bool.random(using: &generator) {
        slots.insert(slot)
        reference.insert(slot)
      } else {
        slots.remove(slot)
        reference.remove(slot)
      }
    }
    XCTAssertEqual(slots.count, reference.count)
    for slot in -1..<3_100 { XCTAssertEqual(slots.contains(slot), reference.contains(slot)) }
  }

  func testTheCountIgnoresRepeatsAndAbsentSlots() {
    var slots = SlotSet()
    slots.insert(63)
    slots.insert(64)
    slots.insert(64)
    slots.remove(5)
    slots.remove(100_000)
    slots.insert(-1)
    XCTAssertEqual(slots.count, 2)
    slots.remove(63)
    XCTAssertEqual(slots.count, 1)
    XCTAssertTrue(slots.contains(64))
    XCTAssertFalse(slots.contains(63))
  }
}
