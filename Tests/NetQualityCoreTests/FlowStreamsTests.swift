import XCTest

@testable import NetQualityCore

final class FlowStreamsTests: XCTestCase {
  let aliceToBob = FlowKey(StreamKey(source: Net.alice, destination: Net.bob, ssrc: 1))

  func testAFlowReversedSwapsAddressesAndPorts() {
    let bobToAlice = FlowKey(StreamKey(source: Net.bob, destination: Net.alice, ssrc: 2))
    XCTAssertEqual(aliceToBob.reversed, bobToAlice)
    XCTAssertEqual(aliceToBob.reversed.reversed, aliceToBob)
    XCTAssertEqual(aliceToBob.ports, 40_000 << 16 | 50_000)
    // The SSRC is not part of the flow.
    XCTAssertEqual(FlowKey(StreamKey(source: Net.alice, destination: Net.bob, ssrc: 9)), aliceToBob)
    XCTAssertEqual(MemoryLayout<FlowKey>.stride, 40)
  }

  func testAConfirmedFlowOutlivesItsStreamsAndConfirmsTheReverseOne() {
    var flows: [FlowKey: FlowStreams] = [:]
    flows.add(4, under: aliceToBob)
    flows.add(6, under: aliceToBob)
    XCTAssertFalse(flows.isConfirmed(aliceToBob))
    flows[aliceToBob, default: FlowStreams()].confirmed = true
    XCTAssertTrue(flows.isConfirmed(aliceToBob))
    XCTAssertTrue(flows.isConfirmed(aliceToBob.reversed), "the answer on the same pair")
    XCTAssertEqual(flows[aliceToBob]?.indices.map(Array.init), [4, 6])
    // Bob answers on the reverse flow; Alice's streams end.
    flows.add(1, under: aliceToBob.reversed)
    flows.remove(4, under: aliceToBob)
    flows.remove(6, under: aliceToBob)
    // No stream left on Alice's flow, still confirmed: it confirms Bob's.
    XCTAssertNil(flows[aliceToBob]?.indices)
    XCTAssertTrue(flows.isConfirmed(aliceToBob.reversed))
    flows.add(8, under: aliceToBob)
    XCTAssertEqual(flows[aliceToBob]?.indices.map(Array.init), [8])
    XCTAssertTrue(flows.isConfirmed(aliceToBob))
    flows.remove(8, under: aliceToBob)
    // Bob's stream ends too: nothing live on the pair, both flows go.
    flows.remove(1, under: aliceToBob.reversed)
    XCTAssertTrue(flows.isEmpty)
    // An unconfirmed flow goes with its last stream, whatever the reverse flow holds.
    flows.add(2, under: aliceToBob)
    flows.add(3, under: aliceToBob.reversed)
    flows.remove(2, under: aliceToBob)
    XCTAssertNil(flows[aliceToBob])
    XCTAssertEqual(flows.count, 1)
  }

  func testCompactionKeepsAConfirmedFlowWhileItsReverseIsLive() throws {
    var analyzer = StreamAnalyzer()
    // Alice's stream is validated (its flow confirmed), then falls silent; Bob's answer on the
    // reverse flow goes on. 5,000 one-packet candidates, forgotten with Alice's stream, make
    // the arrays sparse enough to compact.
    analyzer.feedAudio(from: Net.alice, to: Net.bob, ssrc: 0xA, count: 10)
    for index in 0..<5000 {
      analyzer.feedAudio(
        from: Net.endpoint("10.1.\(index / 250).\(index % 250)", 7000), to: Net.bob,
        ssrc: UInt32(index + 100), count: 1)
    }
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xB, count: 1, startMilliseconds: 9000)
    XCTAssertTrue(analyzer.flows.isConfirmed(aliceToBob))
    analyzer.forget(silentSince: Net.time(8000))
    var remap: [Int32] = []
    XCTAssertTrue(analyzer.compactIfSparse(remap: &remap))
    XCTAssertEqual(analyzer.liveStreamCount, 1)
    // Bob's single packet made no probation: the reverse flow's confirmation keeps it RTP.
    XCTAssertTrue(analyzer.flows.isConfirmed(aliceToBob.reversed))
    XCTAssertEqual(analyzer.report().streams.map(\.key.ssrc), [0xB])
    // Once Bob's stream is forgotten too, nothing on the pair is live: the flows go, without
    // waiting for a compaction (an agent under 4,096 stream slots never compacts).
    analyzer.forget(silentSince: Net.time(60_000))
    XCTAssertFalse(analyzer.flows.isConfirmed(aliceToBob))
    XCTAssertTrue(analyzer.flows.isEmpty)
  }
}
