import GRDB
import NetQualityCore
import NetQualityExport
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// The status page's charts read from the history agree with the same ticks summed in memory
/// (`ChartBucket`), bucket by bucket.
final class HistoryChartQueryTests: HistoryTestCase {
  func testBucketsAgreeWithTheTicksSummedInMemory() throws {
    let script = TickScript(tickCount: 60)
    let writer = try makeWriter()
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }
    let bucketSeconds = 10.0
    let from = script.time(7)
    let to = script.time(50)
    let query = HistoryChartQuery(
      peers: [script.peerNames[0], script.peerNames[2], "10.9.9.9"], from: from, to: to,
      bucketSeconds: bucketSeconds)
    let points = try writer.database.read { try query.points($0, point: ChartPoint.init) }
    XCTAssertEqual(Set(points.keys), [script.peerNames[0], script.peerNames[2]])
    for peer in [0, 2] {
      var buckets: [ChartBucket] = []
      for tick in script.ticks(from: from, to: to) {
        let number = Int64((script.time(tick) / bucketSeconds).rounded(.down))
        if buckets.last?.number != number { buckets.append(ChartBucket(number: number)) }
        let values = script.values(tick: tick, peer: peer)
        buckets[buckets.count - 1].add(
          rxLevel: values.rxLevel, txLevel: values.txLevel, rxLossRatio: values.rxLossRatio,
          txLossRatio: values.txLossRatio, roundTripMilliseconds: values.roundTripMilliseconds)
      }
      let expected = buckets.map { $0.point(bucketSeconds: bucketSeconds) }
      let got = try XCTUnwrap(points[script.peerNames[peer]])
      XCTAssertEqual(got.count, expected.count)
      XCTAssertGreaterThan(got.count, 5)
      for (a, b) in zip(got, expected) {
        XCTAssertEqual(a.time, b.time)
        XCTAssertEqual(a.rxLevel, b.rxLevel)
        XCTAssertEqual(a.txLevel, b.txLevel)
        for (x, y) in [
          (a.rxLossRatio, b.rxLossRatio), (a.txLossRatio, b.txLossRatio),
          (a.roundTripMilliseconds, b.roundTripMilliseconds),
        ] {
          XCTAssertEqual(x == nil, y == nil)
          if let x, let y { XCTAssertEqual(x, y, accuracy: 1e-4 * max(1, abs(y))) }
        }
      }
    }
  }
}
