import Foundation
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// The tick a publication replaced is handed to the retiring queue (`RetiredTick`): the
/// publisher's variable lets go of it at once, and nothing holds it once the queue ran.
final class RetiredTickTests: XCTestCase {
  func testTheReplacedTickIsHeldUntilTheRetiringQueueFreesIt() {
    let peers = (0..<1_000).map { number in
      PeerSnapshot(
        peer: "10.0.\(number / 256).\(number % 256)", state: .timeout,
        stateSince: CaptureTime(nanosecondsSinceEpoch: 1_000), rx: .down, tx: .down,
        rxPackets: 0, rxLost: 0, rxBitsPerSecond: 0, txPackets: 0, rxPacketsTotal: 10,
        rxLostTotal: 0, txPacketsTotal: 10, rxRetransmittedPackets: 0,
        txRetransmittedPackets: 0, rxFECPackets: 0, rxRetransmittedTotal: 0,
        txRetransmittedTotal: 0, rxFECTotal: 0, streams: 2)
    }
    weak var table: PeerTable?
    var retired = RetiredTick()
    do {
      let made = PeerTable(time: CaptureTime(nanosecondsSinceEpoch: 2_000), peers: peers)
      table = made
      retired.table = made
    }
    XCTAssertNotNil(table, "held by the retired tick until it is released")
    retired.release()
    XCTAssertNil(retired.table, "the publisher's variable lets go at once")
    RetiredTick.waitForReleases()
    XCTAssertNil(table, "freed once the retiring queue ran")
  }

  func testNothingToReleaseIsNoWork() {
    var retired = RetiredTick()
    retired.release()
    RetiredTick.waitForReleases()
    XCTAssertNil(retired.result)
    XCTAssertNil(retired.table)
  }
}
