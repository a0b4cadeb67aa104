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
    XCTAssertEqual(
      FlowKey(StreamKey(source: Net.alice, destination: Net.bob, ssrc: 9)).tableTag,
      aliceToBob.tableTag)
    XCTAssertEqual(MemoryLayout<FlowKey>.stride, 40)
  }

  func testTheIndexTableKeepsSeveralIndicesPerTagThroughGrowthAndRemoval() {
    var table = StreamIndexTable()
    // 3,000 indices under 300 tags, some tags sharing a home slot (tag & mask).
    for index in 0..<3000 { table.insert(index, tag: UInt32(index % 300) << 20) }
    XCTAssertEqual(table.count, 3000)
    func indices(_ tag: Int) -> [Int] {
      table.candidates(tag: UInt32(tag) << 20).sorted()
    }
    XCTAssertEqual(indices(7), Array(stride(from: 7, to: 3000, by: 300)))
    // Remove every other index: the rest are all still found, the removed ones are not.
    for index in stride(from: 0, to: 3000, by: 2) {
      table.remove(index, tag: UInt32(index % 300) << 20)
    }
    XCTAssertEqual(table.count, 1500)
    XCTAssertEqual(indices(7), Array(stride(from: 7, to: 3000, by: 300)))
    XCTAssertEqual(indices(8), [])
    // Removing what is not there changes nothing.
    table.remove(8, tag: 8 << 20)
    table.remove(7, tag: 8 << 20)
    XCTAssertEqual(table.count, 1500)
    for index in stride(from: 1, to: 3000, by: 2) {
      table.remove(index, tag: UInt32(index % 300) << 20)
    }
    XCTAssertEqual(table.count, 0)
    XCTAssertEqual(indices(7), [])
  }

  func testAValidatedStreamConfirmsItsAddressPairBothWays() throws {
    var analyzer = StreamAnalyzer()
    // One packet each way: neither passes probation on its own.
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xB, count: 1)
    analyzer.feedAudio(from: Net.alice, to: Net.bob, ssrc: 0xC, count: 1)
    XCTAssertTrue(analyzer.report().streams.isEmpty)
    // Alice's main stream passes: Bob's answer and Alice's other stream on the pair are RTP.
    analyzer.feedAudio(from: Net.alice, to: Net.bob, ssrc: 0xA, count: 5, startMilliseconds: 100)
    let report = analyzer.report()
    XCTAssertEqual(Set(report.streams.map(\.key.ssrc)), [0xA, 0xB, 0xC])
    XCTAssertEqual(report.streams.first { $0.key.ssrc == 0xB }?.confirmation, .flow)
    XCTAssertEqual(report.streams.first { $0.key.ssrc == 0xA }?.confirmation, .sequence)
    // A new stream on the pair is confirmed as it arrives; one on another pair is not.
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xD, count: 1, startMilliseconds: 300)
    analyzer.feedAudio(
      from: Net.endpoint("192.0.2.99", 40_000), to: Net.bob, ssrc: 0xE, count: 1,
      startMilliseconds: 300)
    XCTAssertEqual(
      Set(analyzer.report().streams.map(\.key.ssrc)), [0xA, 0xB, 0xC, 0xD])
  }

  func testCompactionKeepsAFlowConfirmedStreamWhileItLives() throws {
    var analyzer = StreamAnalyzer()
    // Alice's stream is validated (its pair confirmed), then falls silent; Bob's answer on the
    // reverse flow goes on. 5,000 one-packet candidates, forgotten with Alice's stream, make
    // the arrays sparse enough to compact.
    analyzer.feedAudio(from: Net.alice, to: Net.bob, ssrc: 0xA, count: 10)
    for index in 0..<5000 {
      analyzer.feedAudio(
        from: Net.endpoint("10.1.\(index / 250).\(index % 250)", 7000), to: Net.bob,
        ssrc: UInt32(index + 100), count: 1)
    }
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xB, count: 1, startMilliseconds: 9000)
    analyzer.forget(silentSince: Net.time(8000))
    var remap: [Int32] = []
    XCTAssertTrue(analyzer.compactIfSparse(remap: &remap))
    XCTAssertEqual(analyzer.liveStreamCount, 1)
    XCTAssertEqual(analyzer.streamsByFlow.count, 1)
    // Bob's single packet made no probation: the pair's confirmation keeps it RTP.
    XCTAssertEqual(analyzer.report().streams.map(\.key.ssrc), [0xB])
    // Once Bob's stream is forgotten too, nothing on the pair is live: a new stream there
    // starts on probation again.
    analyzer.forget(silentSince: Net.time(60_000))
    XCTAssertEqual(analyzer.streamsByFlow.count, 0)
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xF, count: 1, startMilliseconds: 70_000)
    XCTAssertTrue(analyzer.report().streams.isEmpty)
  }
}
