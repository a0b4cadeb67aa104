import XCTest

@testable import NetQualityCore

/// The slots of cold per-stream records and of the facts per address (`SlotStore`): a slot
/// given back is reused, packing keeps the slots in use in their order and says where each
/// went, and the storage goes when every slot is free.
final class SlotStoreTests: XCTestCase {
  func testAGivenBackSlotIsReusedAndHoldsTheEmptyValue() {
    var store = SlotStore(empty: 0)
    let first = store.take()
    let second = store.take()
    store[first] = 11
    store[second] = 22
    store.release(first)
    XCTAssertEqual(store.count, 1)
    XCTAssertEqual(store.slotsMade, 2)
    let reused = store.take()
    XCTAssertEqual(reused, first)
    XCTAssertEqual(store[reused], 0)
    XCTAssertEqual(store[second], 22)
  }

  func testPackingKeepsTheSlotsInUseInTheirOrderAndSaysWhereEachWent() {
    var store = SlotStore(empty: -1)
    let slots = (0..<10).map { value -> Int32 in
      let slot = store.take()
      store[slot] = value
      return slot
    }
    for slot in slots where store[slot] % 3 != 0 { store.release(slot) }
    var moved: [(Int32, Int)] = []
    store.pack { moved.append(($0, $1)) }
    XCTAssertEqual(moved.map(\.0), [0, 1, 2, 3])
    XCTAssertEqual(moved.map(\.1), [0, 3, 6, 9])
    XCTAssertEqual(store.slotsMade, 4)
    XCTAssertEqual(store.count, 4)
    XCTAssertEqual((0..<4).map { store[Int32($0)] }, [0, 3, 6, 9])
    XCTAssertTrue(store.isSlot(3))
    XCTAssertFalse(store.isSlot(4), "a slot number from before the pack is not one any more")
    XCTAssertFalse(store.isSlot(-1))
    XCTAssertEqual(store.take(), 4, "no free slots are left after a pack")
  }

  func testTheStorageGoesWhenEverySlotIsFree() {
    var store = SlotStore(empty: 0)
    let slots = (0..<1000).map { _ in store.take() }
    for slot in slots { store.release(slot) }
    XCTAssertEqual(store.count, 0)
    XCTAssertEqual(store.slotsMade, 0)
    XCTAssertFalse(store.isSlot(0))
  }
}
