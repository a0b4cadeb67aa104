import XCTest

@testable import NetQualityCore

/// The analyzer's facts per address in slots (`AnalyzedAddressTable`): a slot remembered by a
/// stream is trusted only while it still holds that address, each fact is forgotten on its own,
/// and the memory of a wave of addresses comes back.
final class AnalyzedAddressTableTests: XCTestCase {
  private func address(_ host: Int) -> IPAddress {
    IPAddress(ipv4: 0x0A00_0000 | UInt32(host))
  }

  private func time(_ seconds: Int64) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: seconds * 1_000_000_000)
  }

  func testARememberedSlotIsTrustedOnlyWhileItHoldsTheAddress() throws {
    var table = AnalyzedAddressTable()
    table.update(address(1)) { $0.cadence = RTCPCadence(first: self.time(10)) }
    let slot = try XCTUnwrap(table.slot(of: address(1)))
    XCTAssertTrue(table.holds(address(1), at: slot))
    XCTAssertFalse(table.holds(address(2), at: slot))
    XCTAssertFalse(table.holds(address(1), at: -1))
    XCTAssertFalse(table.holds(address(1), at: slot + 1))
    // Forgotten: the slot is given back and holds nothing.
    table.forget(before: time(20))
    XCTAssertNil(table[address(1)])
    XCTAssertFalse(table.holds(address(1), at: slot))
    // Another address may take it: a stream that remembered it for address 1 must not read
    // that address's facts.
    table.update(address(7)) { $0.cadence = RTCPCadence(first: self.time(30)) }
    table.update(address(2)) { $0.end = SessionEnd(time: self.time(31), reason: .rtcpBye) }
    for (host, expected) in [(7, time(30)), (2, nil)] {
      let held = try XCTUnwrap(table.slot(of: address(host)))
      XCTAssertTrue(table.holds(address(host), at: held))
      XCTAssertEqual(table.facts(at: held).cadence?.last, expected)
    }
    // The table emptied and started over: address 7 took address 1's slot.
    XCTAssertEqual(table.slot(of: address(7)), slot)
    XCTAssertFalse(table.holds(address(1), at: slot))
  }

  func testEachFactIsForgottenOnItsOwnAndTheAddressWithTheLast() throws {
    var table = AnalyzedAddressTable()
    table.update(address(1)) {
      $0.cadence = RTCPCadence(first: self.time(10))
      $0.end = SessionEnd(time: self.time(50), reason: .dtlsAlert)
    }
    table.forget(before: time(20))
    let facts = try XCTUnwrap(table[address(1)])
    XCTAssertNil(facts.cadence)
    XCTAssertEqual(facts.end?.time, time(50))
    XCTAssertEqual(table.count, 1)
    table.forget(before: time(60))
    XCTAssertNil(table[address(1)])
    XCTAssertEqual(table.count, 0)
  }

  func testAWaveOfAddressesGivesItsSlotsBackAndTheRestKeepTheirFacts() throws {
    var table = AnalyzedAddressTable()
    // 10,000 addresses, 100 of which go on sending RTCP after the others stop.
    for host in 0..<10_000 {
      table.update(address(host)) { $0.cadence = RTCPCadence(first: self.time(1)) }
    }
    for host in 0..<100 {
      table.update(address(host)) { $0.cadence?.record(self.time(100)) }
    }
    table.forget(before: time(50))
    XCTAssertEqual(table.count, 100)
    for host in [0, 42, 99] {
      let slot = try XCTUnwrap(table.slot(of: address(host)))
      XCTAssertTrue(table.holds(address(host), at: slot))
      XCTAssertEqual(table.facts(at: slot).cadence?.last, time(100))
    }
    XCTAssertNil(table[address(100)])
    // Packed to the 100 left: a slot beyond them, remembered from before, holds nothing.
    XCTAssertFalse(table.holds(address(9_999), at: 9_999))
    table.forget(before: time(200))
    XCTAssertEqual(table.count, 0)
  }
}
