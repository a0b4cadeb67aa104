import GRDB
import NetQualityCore
import NetQualityExport
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// Issue 38: where a relayed call's packets were lost, in the history's columns (summed over
/// its hops, NULL for a call not through this host) and found by `lostIn`; rows written before
/// the columns existed are filled from their records.
final class HistoryCallHopsTests: HistoryTestCase {
  private let script = TickScript(tickCount: 3)

  /// Two hops through 10.207.0.1 (27, 22, 36 and 5, 0, no report) and a call not relayed.
  private func calls() -> [CallRecord] {
    let key = { (source: UInt32, destination: UInt32, ssrc: UInt32) in
      StreamKey(
        source: Endpoint(address: IPAddress(ipv4: source), port: 20000),
        destination: Endpoint(address: IPAddress(ipv4: destination), port: 30000), ssrc: ssrc)
    }
    let end = script.captureTime(1)
    var relayed = CallRecord(
      id: "relayed", kind: .sip, peers: ["10.207.0.2"], start: end.advanced(bySeconds: -30),
      end: end, endReason: .byeCaller)
    relayed.hops = [
      CallRecord.Hop(
        ssrc: 7, ingress: key(0x0ACF_0002, 0x0ACF_0001, 7),
        egress: key(0x0ACF_0001, 0x0ACF_0003, 7), upstreamLost: 27, relayLost: 22,
        downstreamLost: 36, addedJitterMilliseconds: 0.4),
      CallRecord.Hop(
        ssrc: 8, ingress: key(0x0ACF_0003, 0x0ACF_0001, 8),
        egress: key(0x0ACF_0001, 0x0ACF_0002, 8), upstreamLost: 5, relayLost: 0,
        downstreamLost: nil, addedJitterMilliseconds: nil),
    ]
    var unreported = relayed
    unreported.id = "unreported"
    unreported.hops = [relayed.hops[1]]
    var direct = relayed
    direct.id = "direct"
    direct.hops = []
    return [relayed, unreported, direct]
  }

  private let expected: [String: [Int64?]] = [
    "relayed": [32, 22, 36], "unreported": [5, 0, nil], "direct": [nil, nil, nil],
  ]

  private func columns(_ db: Database) throws -> [String: [Int64?]] {
    var found: [String: [Int64?]] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT id, upstream_lost, relay_lost, downstream_lost FROM calls")
    {
      found[row["id"]] = [row["upstream_lost"], row["relay_lost"], row["downstream_lost"]]
    }
    return found
  }

  func testTheHopsLossIsInColumnsAndFound() throws {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount {
      var written = script.tick(tick)
      if tick == 1 { written.snapshot.calls.ended = calls() }
      try writer.write(written)
    }
    try writer.database.read { db in
      XCTAssertEqual(try columns(db), expected)
      func ids(_ segment: HopLoss.Segment) throws -> Set<String> {
        var query = HistoryCallsQuery(from: 0, to: .infinity)
        query.lostIn = segment
        return Set(try query.rows(db).map(\.id))
      }
      XCTAssertEqual(try ids(.upstream), ["relayed", "unreported"])
      XCTAssertEqual(try ids(.relay), ["relayed"])
      XCTAssertEqual(try ids(.downstream), ["relayed"])
      let row = try XCTUnwrap(
        try HistoryCallsQuery(from: 0, to: .infinity).rows(db).first { $0.id == "relayed" })
      XCTAssertEqual([row.upstreamLost, row.relayLost, row.downstreamLost], [32, 22, 36])
    }
  }

  /// A file of the calls migration (v7) with the records as the agent wrote them: the upgrade
  /// fills the columns from each record's `hops`, the same sums as a new row's.
  func testRowsWrittenBeforeTheColumnsAreFilledFromTheirRecords() throws {
    let file = path("v7.sqlite")
    let queue = try DatabaseQueue(path: file)
    try HistorySchema.migrator.migrate(queue, upTo: "v7: calls")
    try queue.write { db in
      for call in calls() {
        try db.execute(
          sql: """
            INSERT INTO calls (id, run_id, kind, peers, start, end, end_reason, failed,
              worst_level, rx_packets, tx_packets, record)
              VALUES (?, 1, 'sip', '10.207.0.2', ?, ?, 'bye_caller', 0, 0, 0, 0, ?)
            """,
          arguments: [
            call.id, call.start.secondsSinceEpoch, call.end.secondsSinceEpoch,
            CallsJSON.recordText(call),
          ])
      }
    }
    try queue.close()
    let database = try HistoryDatabase.openForWriting(path: file)
    try database.read { db in XCTAssertEqual(try columns(db), expected) }
    try database.close()
  }
}
