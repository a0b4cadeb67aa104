import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class StreamTableTests: XCTestCase {
  private func key(_ number: Int) -> StreamKey {
    StreamKey(
      source: Endpoint(
        address: IPAddress(ipv4: 10, 0, UInt8(number / 250 % 250), UInt8(number % 250)), port: 5000),
      destination: Endpoint(address: IPAddress(ipv4: 10, 1, 0, 1), port: 6000), ssrc: UInt32(number)
    )
  }

  /// Inserts, removes half at random, inserts more: every present key is found at its index,
  /// every removed one is gone (backward-shift deletion keeps probe runs intact).
  func testRemovalKeepsEveryOtherKeyFindable() {
    var table = StreamTable(initialCapacity: 8)
    var keys: [Int: StreamKey] = [:]
    var random = SplitMix64(seed: 3)
    func all() -> [(Int, StreamKey)] { keys.map { ($0.key, $0.value) } }
    for index in 0..<2000 {
      table.insert(key(index), at: index, rehashing: all())
      keys[index] = key(index)
    }
    var removed: [Int] = []
    for index in 0..<2000 where random.next() % 2 == 0 {
      table.remove(key(index)) {
        keys[$0]
          ?? StreamKey(
            source: .init(address: .init(ipv4: 0), port: 0),
            destination: .init(address: .init(ipv4: 0), port: 0), ssrc: 0)
      }
      keys[index] = nil
      removed.append(index)
    }
    for (slot, number) in removed.prefix(500).enumerated() {
      let fresh = key(10_000 + slot)
      table.insert(fresh, at: number, rehashing: all())
      keys[number] = fresh
    }
    XCTAssertEqual(table.count, keys.count)
    let lookup: (Int) -> StreamKey = {
      keys[$0]
        ?? StreamKey(
          source: .init(address: .init(ipv4: 0), port: 0),
          destination: .init(address: .init(ipv4: 0), port: 0), ssrc: 0)
    }
    for (index, present) in keys { XCTAssertEqual(table.find(present, keyAt: lookup), index) }
    for number in removed.dropFirst(500) { XCTAssertNil(table.find(key(number), keyAt: lookup)) }
  }

  func testForgottenStreamsFreeTheirSlotsForNewOnes() throws {
    var analyzer = StreamAnalyzer(configuration: .init(maxStreams: 2))
    analyzer.feedAudio(ssrc: 1, count: 10)
    analyzer.feedAudio(ssrc: 2, count: 10)
    analyzer.feedAudio(ssrc: 3, count: 10)
    XCTAssertEqual(analyzer.report().capture.streamTableFull, 10)
    // Everything up to 1 s is silent since long ago.
    XCTAssertEqual(analyzer.forget(silentSince: Net.time(1000)), 2)
    XCTAssertTrue(analyzer.report().streams.isEmpty)
    analyzer.feedAudio(ssrc: 4, count: 10, startMilliseconds: 2000)
    analyzer.feedAudio(ssrc: 1, count: 10, startMilliseconds: 2000, firstSequence: 2000)
    let report = analyzer.report()
    XCTAssertEqual(report.streams.map(\.key.ssrc).sorted(), [1, 4])
    XCTAssertEqual(report.streams.map(\.packets), [10, 10])
    XCTAssertEqual(report.capture.forgottenStreams, 2)
    XCTAssertEqual(analyzer.streamCount, 2)
  }

  /// Fields that move together (the source address and the SSRC both counting up, as a load
  /// generator or a crafted flood sends them) must not cancel in the hash: 20,000 such keys
  /// land on nearly as many distinct home slots as random keys would.
  func testCorrelatedKeysSpreadOverTheTable() {
    let count = 20_000
    let slots = 1 << 16
    var homes = Set<Int>()
    for number in 0..<count {
      let key = StreamKey(
        source: Endpoint(address: IPAddress(ipv4: UInt32(0x7F10_0000 + number)), port: 30000),
        destination: Endpoint(address: IPAddress(ipv4: 0x7F00_0001), port: 41000),
        ssrc: 0x10AD_0000 ^ UInt32(number))
      homes.insert(Int(truncatingIfNeeded: key.tableHash) & (slots - 1))
    }
    // Random keys: 65,536 x (1 - e^(-20,000/65,536)) = 17,237 distinct slots on average (s.d.
    // about 43); the cancelling xor fold gave 1.
    XCTAssertGreaterThan(homes.count, 17_000)
  }
}
