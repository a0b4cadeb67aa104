import XCTest

@testable import NetQualityCore

final class PeerRecordTests: XCTestCase {
  func testInterfaceSetHoldsEveryIndexInOrder() {
    var set = InterfaceSet()
    XCTAssertTrue(set.isEmpty)
    for interface: UInt8 in [63, 0, 32, 31, 7] { set.insert(interface) }
    set.insert(32)
    XCTAssertFalse(set.isEmpty)
    XCTAssertEqual(Array(set), [0, 7, 31, 32, 63])
    XCTAssertTrue(set.contains(63))
    XCTAssertFalse(set.contains(62))
    XCTAssertFalse(set.contains(64), "past the capacity: never a member")
    XCTAssertFalse(set.contains(255))
    XCTAssertEqual(MemoryLayout<InterfaceSet>.size, 8)
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

  func testPeerRecordsReusePlacesAndShrinkAfterAWave() {
    var peers = PeerRecords()
    func record(_ seconds: Int64) -> PeerRecord {
      PeerRecord(firstSeen: CaptureTime(nanosecondsSinceEpoch: seconds * 1_000_000_000))
    }
    for index in 0..<5000 { peers["10.0.\(index / 250).\(index % 250)"] = record(Int64(index)) }
    XCTAssertEqual(peers.count, 5000)
    XCTAssertEqual(peers.placeCount, 5000)
    XCTAssertEqual(peers["10.0.3.7"]?.tracker.since.nanosecondsSinceEpoch, 757_000_000_000)
    // A changed record stays in its place.
    var changed = peers["10.0.3.7"]
    changed?.rxPacketsTotal = 99
    peers["10.0.3.7"] = changed
    XCTAssertEqual(peers["10.0.3.7"]?.rxPacketsTotal, 99)
    XCTAssertEqual(peers.placeCount, 5000)
    // Forgotten peers give their places to new ones.
    for index in 0..<10 { peers["10.0.0.\(index)"] = nil }
    XCTAssertNil(peers["10.0.0.3"])
    peers["192.0.2.1"] = record(1)
    XCTAssertEqual(peers.count, 4991)
    XCTAssertEqual(peers.placeCount, 5000)
    XCTAssertEqual(Set(peers.names(where: { $0.rxPacketsTotal == 99 })), ["10.0.3.7"])
    // A wave ends: 4,991 forgotten of 5,000 places; the rest moves to a table its size.
    for name in Array(peers.names) where name != "10.0.3.7" && name != "192.0.2.1" {
      peers[name] = nil
    }
    peers.shrinkAfterChurn()
    XCTAssertEqual(peers.count, 2)
    XCTAssertEqual(peers.placeCount, 2)
    XCTAssertEqual(peers["10.0.3.7"]?.rxPacketsTotal, 99)
    XCTAssertEqual(peers["192.0.2.1"]?.tracker.since.nanosecondsSinceEpoch, 1_000_000_000)
  }

  /// A place remembered from an earlier tick is used only while it still holds the name: after
  /// the peer was forgotten and its place given to another, after a shrink, or out of range,
  /// the name is looked up.
  func testTakeUsesAHintOnlyWhileItsPlaceHoldsTheName() {
    var peers = PeerRecords()
    func record(_ packets: Int64) -> PeerRecord {
      var record = PeerRecord(firstSeen: CaptureTime(nanosecondsSinceEpoch: 0))
      record.rxPacketsTotal = packets
      return record
    }
    for index in 0..<5000 { peers["10.1.\(index / 250).\(index % 250)"] = record(Int64(index)) }
    func take(_ name: String, hint: Int32) -> (Int32?, Int64) {
      var taken = PeerRecord.vacant
      let place = peers.take(name, hint: hint, into: &taken)
      if place != nil { peers.putBack(taken, at: place, name: name) }
      return (place, taken.rxPacketsTotal)
    }
    let (place, packets) = take("10.1.2.3", hint: -1)
    XCTAssertEqual(packets, 503)
    guard let place else { return XCTFail("no place for 10.1.2.3") }
    XCTAssertEqual(take("10.1.2.3", hint: place).1, 503)
    // The right record whatever the hint: another peer's place, a place past the end.
    XCTAssertEqual(take("10.1.2.3", hint: place + 1).1, 503)
    XCTAssertEqual(take("10.1.2.3", hint: 1_000_000).1, 503)
    // Forgotten, its place goes to a new peer: the old hint finds nothing of the old name.
    peers["10.1.2.3"] = nil
    XCTAssertNil(take("10.1.2.3", hint: place).0)
    peers["192.0.2.9"] = record(7)
    XCTAssertEqual(take("192.0.2.9", hint: place).0, place)
    XCTAssertNil(take("10.1.2.3", hint: place).0)
    XCTAssertEqual(take("192.0.2.9", hint: -1).1, 7)
    // After a wave and a shrink the places move: a stale hint is looked past.
    for index in 0..<4990 { peers["10.1.\(index / 250).\(index % 250)"] = nil }
    peers.shrinkAfterChurn()
    XCTAssertEqual(peers.placeCount, 11)
    XCTAssertEqual(take("10.1.19.245", hint: 4995).1, 4995)
    XCTAssertEqual(take("192.0.2.9", hint: place).1, 7)
  }
}
