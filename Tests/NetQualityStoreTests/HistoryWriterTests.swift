import GRDB
import NetQualityCore
import NetQualityExport
import NetQualityStoreTestSupport
import XCTest

@testable import NetQualityStore

final class HistoryWriterTests: HistoryTestCase {
  /// Ten ticks of three peers: .3 connects at tick 2, .2 disconnects at tick 6, an alert on .1
  /// fires at tick 3 and resolves at tick 8.
  private let script = TickScript(tickCount: 10)

  private var alert: Alert {
    EventBuilder.alert("rx_loss", peer: script.peerNames[0], firedAt: script.captureTime(3))
  }

  private func events(_ tick: Int) -> [EngineEvent] {
    switch tick {
    case 2: [EventBuilder.event(.connected, peer: script.peerNames[2], at: script.captureTime(2))]
    case 3: [EventBuilder.firing(alert)]
    case 6:
      [EventBuilder.event(.disconnected, peer: script.peerNames[1], at: script.captureTime(6))]
    case 8: [EventBuilder.resolved(alert, at: script.captureTime(8))]
    default: []
    }
  }

  private func writeScript(_ writer: HistoryWriter) throws {
    for tick in 0..<script.tickCount {
      try writer.write(script.tick(tick, events: events(tick)))
    }
  }

  /// Issue 37: every column of a peer's row as bound (the writer binds them to SQLite
  /// itself): the network figures, and the media ones, NULL where the peer has none.
  func testEveryColumnOfAPeerRow() throws {
    let writer = try makeWriter()
    var snapshot = script.snapshot(0)
    var media = PeerMedia()
    media.rx.videoStreams = 1
    media.rx.window.framesReceived = 59
    media.rx.framesPerSecond = 29.5
    media.rx.window.freezes = 2
    media.rx.window.freezesSeconds = 0.75
    media.rx.window.pauses = 1
    media.rx.window.pausesSeconds = 3.25
    media.rx.feedbackTotal.nackMessages = 9
    media.rx.feedbackWindow.nackMessages = 4
    media.rx.feedbackWindow.pictureLossIndications = 3
    media.tx.audioStreams = 1
    media.tx.window.concealedSeconds = 0.125
    snapshot.peers[0].media = media
    try writer.write(HistoryTick(snapshot: snapshot, events: [], renderCall: CallsJSON.recordText))
    let peer = snapshot.peers[0]
    let row = try XCTUnwrap(
      writer.database.read { db in
        try Row.fetchOne(
          db,
          sql: """
            SELECT t.* FROM peer_ticks t JOIN peers p ON p.id = t.peer_id
            WHERE p.name = ?
            """, arguments: [peer.peer])
      })
    XCTAssertEqual(row["time"] as Double, script.time(0))
    XCTAssertEqual(row["state"] as Int, HistoryCodes.code(peer.state))
    XCTAssertEqual(row["tx_level"] as Int, peer.tx.level.rawValue)
    XCTAssertEqual(row["rx_level"] as Int, peer.rx.level.rawValue)
    XCTAssertEqual(row["tx_source"] as Int?, HistoryCodes.code(peer.tx.source))
    XCTAssertEqual(row["rx_source"] as Int?, HistoryCodes.code(peer.rx.source))
    XCTAssertEqual(row["tx_mos"] as Double?, peer.tx.meanOpinionScore)
    XCTAssertEqual(row["rx_mos"] as Double?, peer.rx.meanOpinionScore)
    XCTAssertEqual(row["tx_loss_ratio"] as Double?, peer.tx.inputs?.lossRatio)
    XCTAssertEqual(row["rx_loss_ratio"] as Double?, peer.rx.inputs?.lossRatio)
    XCTAssertEqual(row["tx_jitter_ms"] as Double?, peer.tx.inputs?.jitterMilliseconds)
    XCTAssertEqual(row["rx_jitter_ms"] as Double?, peer.rx.inputs?.jitterMilliseconds)
    XCTAssertEqual(row["rtt_ms"] as Double?, peer.roundTripMilliseconds)
    XCTAssertEqual(row["rtt_source"] as Int?, HistoryCodes.code(peer.roundTripSource))
    XCTAssertEqual(row["rx_packets"] as Int64, peer.rxPackets)
    XCTAssertEqual(row["rx_lost"] as Int64, peer.rxLost)
    XCTAssertEqual(row["tx_packets"] as Int64, peer.txPackets)
    XCTAssertEqual(row["rx_bitrate_bps"] as Double, peer.rxBitsPerSecond)
    XCTAssertEqual(row["streams"] as Int, peer.streams)
    XCTAssertEqual(row["rx_video_frames"] as Int64?, 59)
    XCTAssertEqual(row["rx_video_fps"] as Double?, 29.5)
    XCTAssertEqual(row["rx_video_freezes"] as Int64?, 2)
    XCTAssertEqual(row["rx_video_freeze_s"] as Double?, 0.75)
    XCTAssertEqual(row["rx_video_pauses"] as Int64?, 1)
    XCTAssertEqual(row["rx_video_pause_s"] as Double?, 3.25)
    XCTAssertNil(row["tx_video_frames"] as Int64?)
    XCTAssertNil(row["tx_video_fps"] as Double?)
    XCTAssertNil(row["tx_video_freezes"] as Int64?)
    XCTAssertNil(row["tx_video_freeze_s"] as Double?)
    XCTAssertNil(row["rx_audio_concealed_s"] as Double?)
    XCTAssertEqual(row["tx_audio_concealed_s"] as Double?, 0.125)
    XCTAssertEqual(row["rx_nacks"] as Int64?, 4)
    XCTAssertEqual(row["rx_plis"] as Int64?, 3)
    XCTAssertNil(row["tx_nacks"] as Int64?)
    XCTAssertNil(row["tx_plis"] as Int64?)
    // A peer without media: every media column NULL.
    let other = try XCTUnwrap(
      writer.database.read { db in
        try Row.fetchOne(
          db,
          sql: """
            SELECT t.rx_video_frames, t.rx_video_pauses, t.tx_audio_concealed_s, t.rx_nacks
            FROM peer_ticks t JOIN peers p ON p.id = t.peer_id WHERE p.name = ?
            """, arguments: [snapshot.peers[1].peer])
      })
    XCTAssertEqual(Array(other.databaseValues), [DatabaseValue](repeating: .null, count: 4))
  }

  /// Issue 37: the writer's id caches stay bounded however many distinct peers come and go
  /// (a TURN host's month), and a peer that comes back after the cache started again keeps
  /// its id.
  func testIDCacheBoundedUnderChurn() throws {
    let writer = try makeWriter()
    var script = TickScript(tickCount: 1)
    let limit = HistoryWriter.idCacheLimit(2000)
    var largest = 0
    for wave in 0..<12 {
      script.start = TickScript.epoch + Double(wave) * 2
      script.peerNames = (0..<2000).map { "10.\(wave).\($0 / 250).\($0 % 250)" }
      try writer.write(script.tick(0))
      largest = max(largest, writer.cachedIDs.peers)
    }
    XCTAssertLessThanOrEqual(largest, limit + 2000)
    XCTAssertLessThan(writer.cachedIDs.peers, 12 * 2000)
    // The first wave again: the same ids (no new peers), its rows under them.
    script.start = TickScript.epoch + 100
    script.peerNames = (0..<2000).map { "10.0.\($0 / 250).\($0 % 250)" }
    try writer.write(script.tick(0))
    XCTAssertEqual(try count("peers", in: writer.database), 12 * 2000)
    let firstWaveIDs = try writer.database.read { db in
      try Int.fetchOne(
        db,
        sql: """
          SELECT count(DISTINCT t.peer_id) FROM peer_ticks t JOIN peers p ON p.id = t.peer_id
          WHERE p.name LIKE '10.0.%'
          """)
    }
    XCTAssertEqual(firstWaveIDs, 2000)
    XCTAssertEqual(try count("peer_ticks", in: writer.database), 13 * 2000)
  }

  func testEveryTableGetsItsRows() throws {
    let writer = try makeWriter()
    try writeScript(writer)
    let database = writer.database

    XCTAssertEqual(try count("runs", in: database), 1)
    XCTAssertEqual(try count("peers", in: database), 3)
    XCTAssertEqual(try count("ticks", in: database), 10)
    XCTAssertEqual(try count("peer_ticks", in: database), 30)
    XCTAssertEqual(try count("events", in: database), 4)
    XCTAssertEqual(try count("alerts", in: database), 1)
    XCTAssertEqual(try count("stream_ticks", in: database), 0)
    XCTAssertEqual(try count("storage_events", in: database), 0)
    XCTAssertEqual(try count("calls", in: database), 0)
    XCTAssertEqual(writer.rowsWritten, ["ticks": 10, "peer_ticks": 30, "events": 4, "calls": 0])

    try database.read { db in
      let kinds = try String.fetchAll(db, sql: "SELECT kind FROM events ORDER BY time")
      XCTAssertEqual(kinds, ["connected", "alert_firing", "disconnected", "alert_resolved"])
      let disconnect = try XCTUnwrap(
        Row.fetchOne(
          db,
          sql: """
            SELECT e.time, p.name FROM events e JOIN peers p ON p.id = e.peer_id
            WHERE e.kind = 'disconnected'
            """))
      XCTAssertEqual(disconnect[0] as Double, script.time(6))
      XCTAssertEqual(disconnect[1] as String, "10.0.0.2")
      let alertEvent = try XCTUnwrap(
        String.fetchOne(db, sql: "SELECT alert_id FROM events WHERE kind = 'alert_resolved'"))
      XCTAssertEqual(alertEvent, alert.id)

      let tick = try XCTUnwrap(
        Row.fetchOne(
          db, sql: "SELECT run_id, interval_s, peers, streams FROM ticks WHERE time = ?",
          arguments: [script.time(4)]))
      XCTAssertEqual(tick[0] as Int64, writer.runID)
      XCTAssertEqual(tick[1] as Double, 2)
      XCTAssertEqual(tick[2] as Int, 3)
      XCTAssertEqual(tick[3] as Int, 0)
    }
  }

  func testAlertRowHoldsItsFiringAndResolution() throws {
    let writer = try makeWriter()
    try writeScript(writer)

    let rows = try writer.database.read { db in
      try HistoryQuery(from: script.start, to: script.newest + 1).alerts(db)
    }
    XCTAssertEqual(rows.count, 1)
    let row = try XCTUnwrap(rows.first)
    XCTAssertEqual(row.id, "rx_loss:10.0.0.1:1700000046000")
    XCTAssertEqual(row.rule, "rx_loss")
    XCTAssertEqual(row.severity, "warning")
    XCTAssertEqual(row.peer, "10.0.0.1")
    XCTAssertEqual(row.labels, #"{"direction":"rx","peer":"10.0.0.1"}"#)
    XCTAssertEqual(row.summary, "rx loss high")
    XCTAssertEqual(row.firedAt, script.time(3))
    XCTAssertEqual(row.resolvedAt, script.time(8))
    XCTAssertEqual(row.endReason, "resolved")

    // Active at some time in the range: fired before its end, not resolved before its start.
    let before = try writer.database.read { db in
      try HistoryQuery(from: script.start, to: script.time(3)).alerts(db)
    }
    XCTAssertEqual(before.count, 0)
    let after = try writer.database.read { db in
      try HistoryQuery(from: script.time(9), to: script.newest + 1).alerts(db)
    }
    XCTAssertEqual(after.count, 0)
    let firing = try writer.database.read { db in
      try HistoryQuery(from: script.start, to: script.newest + 1).alerts(db, activeOnly: true)
    }
    XCTAssertEqual(firing.count, 0)
  }

  func testNextRunEndsAnAlertLeftFiringAtItsRunsLastTick() throws {
    let first = try makeWriter()
    for tick in 0..<5 {
      try first.write(script.tick(tick, events: tick == 3 ? [EventBuilder.firing(alert)] : []))
    }
    let stillFiring = try first.database.read { db in
      try HistoryQuery(from: script.start, to: script.newest + 1).alerts(db, activeOnly: true)
    }
    XCTAssertEqual(stillFiring.map(\.id), [alert.id])

    let second = try HistoryWriter(
      database: first.database, kind: "agent", name: "test-host", version: "test",
      startedAt: script.time(20))
    XCTAssertNotEqual(second.runID, first.runID)
    // The next run's own ticks do not move the end.
    for tick in 20..<23 { try second.write(script.tick(tick)) }

    let row = try XCTUnwrap(
      first.database.read { db in
        try HistoryQuery(from: script.start, to: script.time(30)).alerts(db).first
      })
    XCTAssertEqual(row.firedAt, script.time(3))
    XCTAssertEqual(row.resolvedAt, script.time(4))
    XCTAssertEqual(row.endReason, "agent_stopped")
    XCTAssertEqual(try count("runs", in: first.database), 2)
    XCTAssertEqual(try count("alerts", in: first.database, where: "resolved_at IS NULL"), 0)
  }

  func testRowsReadBackEqualWhatWasWritten() throws {
    let writer = try makeWriter()
    try writeScript(writer)

    let rows = try writer.database.read { db in
      try HistoryQuery(from: script.start, to: script.newest + 1).rows(db)
    }
    XCTAssertEqual(rows.count, 30)
    // Oldest first, peers by name within a tick.
    for (index, row) in rows.enumerated() {
      let tick = index / 3
      let expected = script.values(tick: tick, peer: index % 3)
      XCTAssertEqual(row.time, script.time(tick))
      XCTAssertEqual(row.intervalSeconds, 2)
      XCTAssertEqual(row.peer, expected.name)
      XCTAssertEqual(row.state, expected.state)
      XCTAssertEqual(row.txLevel, expected.txLevel)
      XCTAssertEqual(row.rxLevel, expected.rxLevel)
      XCTAssertEqual(row.txSource, expected.txSource)
      XCTAssertEqual(row.rxSource, expected.rxSource)
      XCTAssertEqual(row.txMOS, expected.txMOS)
      XCTAssertEqual(row.rxMOS, expected.rxMOS)
      XCTAssertEqual(row.txLossRatio, expected.txLossRatio)
      XCTAssertEqual(row.rxLossRatio, expected.rxLossRatio)
      XCTAssertEqual(row.txJitterMilliseconds, expected.txJitterMilliseconds)
      XCTAssertEqual(row.rxJitterMilliseconds, expected.rxJitterMilliseconds)
      XCTAssertEqual(row.roundTripMilliseconds, expected.roundTripMilliseconds)
      XCTAssertEqual(row.roundTripSource, expected.roundTripMilliseconds == nil ? nil : .rtcp)
      XCTAssertEqual(row.rxPackets, expected.rxPackets)
      XCTAssertEqual(row.rxLost, expected.rxLost)
      XCTAssertEqual(row.txPackets, expected.txPackets)
      XCTAssertEqual(row.rxBitsPerSecond, expected.rxBitsPerSecond)
      XCTAssertEqual(row.streams, expected.streams)
    }
    // The script has a disconnected peer, missing MOS and missing round trips: all were
    // written and read back as such.
    XCTAssertTrue(rows.contains { $0.state == .disconnected && $0.rxMOS == nil })
    XCTAssertTrue(rows.contains { $0.roundTripMilliseconds == nil })
  }

  func testOnePeerAndALimitKeepTheNewestRows() throws {
    let writer = try makeWriter()
    try writeScript(writer)

    let rows = try writer.database.read { db in
      try HistoryQuery(from: script.time(2), to: script.time(9), peer: "10.0.0.2", limit: 4)
        .rows(db)
    }
    XCTAssertEqual(rows.map(\.time), (5...8).map { script.time($0) })
    XCTAssertEqual(Set(rows.map(\.peer)), ["10.0.0.2"])
    XCTAssertEqual(rows.map(\.rxLevel), (5...8).map { script.values(tick: $0, peer: 1).rxLevel })

    let unknown = try writer.database.read { db in
      try HistoryQuery(from: script.start, to: script.newest + 1, peer: "10.9.9.9").rows(db)
    }
    XCTAssertEqual(unknown.count, 0)
  }

  func testDroppedTicksAndCaptureHealthAreRecorded() throws {
    let writer = try makeWriter()
    var tick = script.tick(0)
    tick.capture = HistoryTick.CaptureHealth(frames: 12_345, dropped: 7, decodeErrors: 2)
    try writer.write(tick, droppedBefore: 5)

    try writer.database.read { db in
      let health = try XCTUnwrap(
        Row.fetchOne(db, sql: "SELECT capture_frames, capture_dropped, decode_errors FROM ticks"))
      XCTAssertEqual(health[0] as Int64, 12_345)
      XCTAssertEqual(health[1] as Int64, 7)
      XCTAssertEqual(health[2] as Int64, 2)
      let gap = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT time, kind, ticks FROM storage_events"))
      XCTAssertEqual(gap[0] as Double, script.time(0))
      XCTAssertEqual(gap[1] as String, "dropped")
      XCTAssertEqual(gap[2] as Int64, 5)
    }
  }

  func testNewPeersGetOneIdEachAcrossWriters() throws {
    let first = try makeWriter()
    try first.write(script.tick(0))
    let second = try HistoryWriter(
      database: first.database, kind: "capture", name: "call.pcap", version: "test",
      startedAt: script.time(1))
    try second.write(script.tick(1))
    try first.database.read { db in
      XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM peers"), 3)
      XCTAssertEqual(
        try Double.fetchAll(db, sql: "SELECT first_seen FROM peers"),
        [script.time(0), script.time(0), script.time(0)])
      XCTAssertEqual(
        try Int.fetchOne(db, sql: "SELECT count(DISTINCT peer_id) FROM peer_ticks"), 3)
    }
  }
}
