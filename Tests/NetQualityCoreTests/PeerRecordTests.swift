import XCTest

@testable import NetQualityCore

final class PeerRecordTests: XCTestCase {
  func testInterfaceSetHoldsEveryIndexInOrder() {
    var set = InterfaceSet()
    XCTAssertTrue(set.isEmpty)
    for interface: UInt8 in [255, 0, 64, 63, 128, 7] { set.insert(interface) }
    set.insert(64)
    XCTAssertFalse(set.isEmpty)
    XCTAssertEqual(Array(set), [0, 7, 63, 64, 128, 255])
    XCTAssertTrue(set.contains(63))
    XCTAssertFalse(set.contains(62))
    XCTAssertFalse(set.contains(254))
    var other = InterfaceSet()
    other.insert(7)
    XCTAssertNotEqual(set, other)
  }

  func testAnEmptyPoolKeepsNoWindowsAndSumsLikeOne() {
    var pool = WindowPool()
    // A peer without video: its video pool stays empty, tick after tick.
    for _ in 0..<5 { pool.push(packets: 0, expected: 0, lost: 0, keep: 3) }
    XCTAssertEqual(pool.windowCount, 0)
    pool.push(packets: 48, expected: 50, lost: 2, keep: 3)
    pool.push(packets: 50, expected: 50, lost: 0, keep: 3)
    XCTAssertEqual(pool.packets, 98)
    XCTAssertEqual(pool.lossRatio, 0.02, accuracy: 1e-12)
    pool.push(packets: 50, expected: 50, lost: 0, keep: 3)
    pool.push(packets: 0, expected: 0, lost: 0, keep: 3)
    // The 2 lost left the pool with its window: three windows kept, the lossy one gone.
    XCTAssertEqual(pool.windowCount, 3)
    XCTAssertEqual(pool.packets, 100)
    XCTAssertEqual(pool.lossRatio, 0)
    for _ in 0..<3 { pool.push(packets: 0, expected: 0, lost: 0, keep: 3) }
    XCTAssertEqual(pool.windowCount, 0)
  }
}
