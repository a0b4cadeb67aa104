import XCTest

@testable import NetQualityCore

/// The scorer's media table keeps each peer's place from tick to tick (`PeerMediaTable`): a
/// record is only ever this tick's, a stream's remembered place is checked against its peer's
/// name, and the places of departed peers come back.
final class PeerMediaTableTests: XCTestCase {
  /// Adds one audio stream's tick to `name`'s record, as `Scorer.mediaTick` does.
  private func addAudio(_ table: inout PeerMediaTable, _ name: String, stream: Int32) {
    let position = table.position(of: name, stream: stream)
    table.records[position].rx.audioStreams += 1
  }

  func testRecordsAreOnlyTheTicksOwn() {
    var table = PeerMediaTable()
    table.beginTick(streamSlots: 2)
    addAudio(&table, "a", stream: 0)
    addAudio(&table, "b", stream: 1)
    addAudio(&table, "a", stream: 0)
    XCTAssertEqual(table.media(of: "a", streams: [0])?.rx.audioStreams, 2)
    XCTAssertEqual(table["b"]?.rx.audioStreams, 1)

    // The next tick: a's record starts again from nothing; b had no media in it.
    table.beginTick(streamSlots: 2)
    addAudio(&table, "a", stream: 0)
    XCTAssertEqual(table.media(of: "a", streams: [0])?.rx.audioStreams, 1)
    XCTAssertNil(table["b"])
    XCTAssertNil(table.media(of: "b", streams: [1]))
  }

  func testAReusedStreamIndexFindsItsNewPeer() {
    var table = PeerMediaTable()
    table.beginTick(streamSlots: 1)
    addAudio(&table, "old", stream: 0)
    // The analyzer gave slot 0 to another peer's stream: the remembered place is old's.
    table.beginTick(streamSlots: 1)
    addAudio(&table, "new", stream: 0)
    XCTAssertEqual(table.media(of: "new", streams: [0])?.rx.audioStreams, 1)
    XCTAssertNil(table.media(of: "old", streams: [0]))
    // And back: old's place was kept for one tick without media, so it is found again.
    table.beginTick(streamSlots: 1)
    addAudio(&table, "old", stream: 0)
    XCTAssertEqual(table.media(of: "old", streams: [0])?.rx.audioStreams, 1)
    XCTAssertNil(table["new"])
  }

  func testDepartedPeersGiveTheirPlacesAndMemoryBack() {
    var table = PeerMediaTable()
    table.beginTick(streamSlots: 5000)
    for peer in 0..<5000 { addAudio(&table, "peer\(peer)", stream: Int32(peer)) }
    XCTAssertEqual(table.records.count, 5000)
    // One peer stays: the others keep their places one tick, then give them back, and the
    // table is rebuilt at the size of what is left.
    table.beginTick(streamSlots: 5000)
    addAudio(&table, "peer4999", stream: 4999)
    XCTAssertEqual(table.records.count, 5000)
    table.beginTick(streamSlots: 5000)
    addAudio(&table, "peer4999", stream: 4999)
    XCTAssertEqual(table.records.count, 1)
    XCTAssertEqual(table.media(of: "peer4999", streams: [4999])?.rx.audioStreams, 1)
    XCTAssertNil(table["peer0"])
    // A new peer takes a new place, and no record of the old ones shows through.
    addAudio(&table, "peer0", stream: 0)
    XCTAssertEqual(table.media(of: "peer0", streams: [0])?.rx.audioStreams, 1)
    XCTAssertEqual(table.records.count, 2)
  }

  func testFreePlacesAreReusedBeforeTheTableGrows() {
    var table = PeerMediaTable()
    table.beginTick(streamSlots: 3)
    for (peer, stream) in [("a", 0), ("b", 1), ("c", 2)] {
      addAudio(&table, peer, stream: Int32(stream))
    }
    table.beginTick(streamSlots: 3)
    addAudio(&table, "a", stream: 0)
    table.beginTick(streamSlots: 3)
    addAudio(&table, "a", stream: 0)
    addAudio(&table, "d", stream: 1)
    addAudio(&table, "e", stream: 2)
    XCTAssertEqual(table.records.count, 3)
    XCTAssertEqual(table.media(of: "d", streams: [1])?.rx.audioStreams, 1)
    XCTAssertEqual(table.media(of: "e", streams: [2])?.rx.audioStreams, 1)
    XCTAssertNil(table["b"])
    XCTAssertNil(table["c"])
  }
}
