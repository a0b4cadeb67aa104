import NetQualityCore
import XCTest

@testable import NetQualityProbe

final class LRUTableTests: XCTestCase {
  let start = CaptureTime(seconds: 1_000, nanoseconds: 0)

  func testLeastRecentlyUsedIsEvictedFirst() {
    var table = LRUTable<Int, String>(capacity: 2, idleSeconds: 100)
    XCTAssertTrue(table.slot(for: 1, now: start) { "one" }.isNew)
    XCTAssertTrue(table.slot(for: 2, now: start) { "two" }.isNew)
    // Touch 1, so 2 is the least recently used.
    XCTAssertFalse(table.slot(for: 1, now: start) { "again" }.isNew)
    XCTAssertTrue(table.slot(for: 3, now: start) { "three" }.isNew)
    XCTAssertEqual(table.count, 2)
    XCTAssertEqual(table.evictions, 1)
    let one = table.slot(for: 1, now: start) { "new" }
    XCTAssertFalse(one.isNew)
    XCTAssertEqual(table[one.slot], "one")
    XCTAssertTrue(table.slot(for: 2, now: start) { "two again" }.isNew)
  }

  func testIdleEntriesExpire() {
    var table = LRUTable<Int, Int>(capacity: 10, idleSeconds: 5)
    let first = table.slot(for: 1, now: start) { 0 }
    table[first.slot] = 41
    _ = table.slot(for: 2, now: start.advanced(bySeconds: 3)) { 0 }
    // 1 was last used 6 s ago: gone; 2 only 3 s ago: kept.
    let again = table.slot(for: 1, now: start.advanced(bySeconds: 6)) { 7 }
    XCTAssertTrue(again.isNew)
    XCTAssertEqual(table[again.slot], 7)
    XCTAssertEqual(table.expirations, 1)
    XCTAssertEqual(table.count, 2)
  }

  func testManyKeysStayWithinCapacity() {
    var table = LRUTable<Int, Int>(capacity: 64, idleSeconds: 1)
    for key in 0..<10_000 {
      let now = start.advanced(byNanoseconds: Int64(key) * 1_000_000)
      let found = table.slot(for: key % 97, now: now) { key }
      table[found.slot] += 1
      XCTAssertLessThanOrEqual(table.count, 64)
    }
  }
}
