import XCTest

@testable import NetQualityCore

/// The records kept once per stream or per peer, at 100,000 streams and peers, each byte is
/// 100 KB (issue 12: 100,000 streams in under 200 MB). Their sizes are pinned here so that a
/// new field, or a field moved where it adds padding, is a decision rather than an accident.
final class RecordSizeTests: XCTestCase {
  func testPerStreamRecordsKeepTheirSize() {
    XCTAssertEqual(MemoryLayout<RTPStream>.stride, 384)
    XCTAssertEqual(MemoryLayout<StreamHarvest.Stream>.stride, 160)
    XCTAssertEqual(MemoryLayout<StreamWindow>.stride, 112)
    XCTAssertEqual(MemoryLayout<StreamBaseline>.stride, 40)
    XCTAssertEqual(MemoryLayout<ConnectionTracker?>.stride, 32)
    XCTAssertEqual(MemoryLayout<StreamCounts>.stride, 56)
    // What a tick keeps of each stream while its harvest is drained.
    XCTAssertEqual(MemoryLayout<StreamFacts>.stride, 32)
  }

  func testPerPeerRecordsKeepTheirSize() {
    // 128, and 64 for the time at each level and the worst of the minute (issue 25: every
    // figure a tick shows recoverable by Prometheus at any scrape interval), and 8 for the
    // reference to the last snapshot's box of media and probe figures, shared with that
    // snapshot and reused while they stay the same (issue 37: a box a tick for every held peer),
    // and 8 for the box of a silent peer's snapshot at rest (`RestingPeer`, issue 37: scored
    // again at every tick, the 80 % of a churning host's peers that are silent were most of
    // its ticks).
    XCTAssertEqual(MemoryLayout<PeerRecord>.stride, 208)
    XCTAssertEqual(MemoryLayout<PackedOptionalDouble>.stride, 8)
    XCTAssertEqual(MemoryLayout<DirectionSnapshot>.stride, 64)
    XCTAssertEqual(MemoryLayout<PeerSnapshot>.stride, 256)
    // A tick in which every peer connects has an event per peer.
    XCTAssertEqual(MemoryLayout<EngineEvent>.stride, 48)
  }
}
