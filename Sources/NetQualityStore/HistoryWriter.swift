import Foundation
import GRDB
import NetQualityCore

/// Writes ticks into an open history, one transaction per tick, with statements prepared once.
/// Used by one thread at a time: the agent's recorder thread, or `analyze --db`.
public final class HistoryWriter {
  public let database: DatabaseQueue
  public let runID: Int64
  /// Stream rows (one per stream per tick) are opt-in: they multiply the rows by the streams.
  public var writesStreams: Bool
  /// Peer and stream ids known to be committed; ids made in a transaction join them only when
  /// it commits, so a failed tick leaves no id behind that the file does not have.
  private var peerIDs: [String: Int64] = [:]
  private var streamIDs: [StreamKey: Int64] = [:]

  /// Rows written, by table, since this writer was made.
  public private(set) var rowsWritten: [String: Int64] = [:]

  /// Starts a run (the agent's start, or one capture) in `database`. Alerts a previous run
  /// left firing end at that run's last tick: the engine that held them is gone. With
  /// `resuming`, the run of that id goes on when the file has it (the same agent opened the
  /// same file again, after its WAL was deleted under it), else a new run starts.
  public init(
    database: DatabaseQueue, kind: String, name: String, version: String, startedAt: Double,
    writesStreams: Bool = false, resuming resumedRunID: Int64? = nil
  ) throws {
    self.database = database
    self.writesStreams = writesStreams
    runID = try database.write { db in
      if let resumedRunID,
        try Int64.fetchOne(
          db, sql: "SELECT id FROM runs WHERE id = ? AND kind = ? AND name = ? AND started_at = ?",
          arguments: [resumedRunID, kind, name, startedAt]) != nil
      {
        return resumedRunID
      }
      try db.execute(
        sql: """
          UPDATE alerts SET end_reason = 'agent_stopped',
            resolved_at = coalesce((SELECT max(time) FROM ticks WHERE run_id = alerts.run_id),
              fired_at)
          WHERE resolved_at IS NULL
          """)
      try db.execute(
        sql: "INSERT INTO runs (kind, name, version, started_at) VALUES (?, ?, ?, ?)",
        arguments: [kind, name, version, startedAt])
      return db.lastInsertedRowID
    }
  }

  /// Writes one tick, its events and alert changes, in one transaction: all of it or none.
  /// `dropped` ticks the queue let go before it and an `incident` of the storage itself (the
  /// files deleted under the writer) go into `storage_events` with it.
  public func write(_ tick: HistoryTick, droppedBefore dropped: Int64 = 0, incident: String? = nil)
    throws
  {
    var newPeers: [String: Int64] = [:]
    var newStreams: [StreamKey: Int64] = [:]
    var counts: [String: Int64] = [:]
    try database.inTransaction(.immediate) { db in
      let time = tick.snapshot.time.secondsSinceEpoch
      if dropped > 0 {
        try db.execute(
          sql: "INSERT INTO storage_events (time, kind, ticks, message) VALUES (?, ?, ?, ?)",
          arguments: [
            time, "dropped", dropped,
            "\(dropped) ticks dropped before this one: the writer fell behind or failed",
          ])
      }
      if let incident {
        try db.execute(
          sql: "INSERT INTO storage_events (time, kind, message) VALUES (?, 'error', ?)",
          arguments: [time, incident])
      }
      try insertTick(tick, time: time, db: db)
      counts["ticks"] = 1
      // Looked up once per tick: the statement cache hashes the whole SQL at every lookup.
      let peerRow = try db.cachedStatement(sql: Self.insertPeerRowSQL)
      for peer in tick.snapshot.peers {
        let id = try peerID(peer.peer, at: time, db: db, new: &newPeers)
        try insertPeerRow(peer, id: id, time: time, statement: peerRow, db: db)
      }
      counts["peer_ticks"] = Int64(tick.snapshot.peers.count)
      if writesStreams {
        for stream in tick.snapshot.streams {
          let id = try streamID(stream, at: time, db: db, new: &newStreams)
          try insertStreamRow(stream, id: id, time: time, db: db)
        }
        counts["stream_ticks"] = Int64(tick.snapshot.streams.count)
      }
      for event in tick.events {
        let id = try peerID(event.peer, at: time, db: db, new: &newPeers)
        try insertEvent(event, peerID: id, db: db)
        if let alert = event.alert { try upsertAlert(alert, peerID: id, db: db) }
      }
      counts["events"] = Int64(tick.events.count)
      for call in tick.snapshot.calls.ended {
        try insertCall(call, record: tick.renderCall(call), db: db)
      }
      counts["calls"] = Int64(tick.snapshot.calls.ended.count)
      return .commit
    }
    // The caches keep the ids of a few ticks' worth of peers and streams, not of every one ever
    // seen: a TURN host sees millions of distinct addresses in a month. Past four times this
    // tick's count they start again (the next tick reads its ids back, once).
    if peerIDs.count > Self.idCacheLimit(tick.snapshot.peers.count) { peerIDs = [:] }
    if streamIDs.count > Self.idCacheLimit(tick.snapshot.streams.count) { streamIDs = [:] }
    peerIDs.merge(newPeers) { $1 }
    streamIDs.merge(newStreams) { $1 }
    rowsWritten.merge(counts, uniquingKeysWith: +)
  }

  /// The most ids a cache keeps for a tick of `count` peers or streams.
  static func idCacheLimit(_ count: Int) -> Int { 4 * max(count, 4096) }

  /// How many peer and stream ids are cached (for tests of the bound).
  var cachedIDs: (peers: Int, streams: Int) { (peerIDs.count, streamIDs.count) }

  private func insertTick(_ tick: HistoryTick, time: Double, db: Database) throws {
    let snapshot = tick.snapshot
    try db.cachedStatement(
      sql: """
        INSERT OR REPLACE INTO ticks (time, run_id, interval_s, host_tx_level, host_rx_level,
          peers, streams, capture_frames, capture_dropped, decode_errors)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(arguments: [
      time, runID, snapshot.intervalSeconds, snapshot.hostTx.rawValue, snapshot.hostRx.rawValue,
      snapshot.peers.count, snapshot.streams.count, tick.capture?.frames, tick.capture?.dropped,
      tick.capture?.decodeErrors,
    ])
  }

  static let insertPeerRowSQL = """
    INSERT OR REPLACE INTO peer_ticks (time, peer_id, state, tx_level, rx_level, tx_source,
      rx_source, tx_mos, rx_mos, tx_loss_ratio, rx_loss_ratio, tx_jitter_ms, rx_jitter_ms,
      rtt_ms, rtt_source, rx_packets, rx_lost, tx_packets, rx_bitrate_bps, streams,
      rx_video_frames, rx_video_fps, rx_video_freezes, rx_video_freeze_s, rx_video_pauses,
      rx_video_pause_s, tx_video_frames, tx_video_fps, tx_video_freezes, tx_video_freeze_s,
      rx_audio_concealed_s, tx_audio_concealed_s, rx_nacks, rx_plis, tx_nacks, tx_plis)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
      ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    """

  private func insertPeerRow(
    _ peer: PeerSnapshot, id: Int64, time: Double, statement: Statement, db: Database
  ) throws {
    var row = SQLiteRowBinder(statement, of: db)
    row.bind(time)
    row.bind(id)
    row.bind(HistoryCodes.code(peer.state))
    row.bind(peer.tx.level.rawValue)
    row.bind(peer.rx.level.rawValue)
    row.bind(HistoryCodes.code(peer.tx.source))
    row.bind(HistoryCodes.code(peer.rx.source))
    row.bind(peer.tx.meanOpinionScore)
    row.bind(peer.rx.meanOpinionScore)
    row.bind(peer.tx.inputs?.lossRatio)
    row.bind(peer.rx.inputs?.lossRatio)
    row.bind(peer.tx.inputs?.jitterMilliseconds)
    row.bind(peer.rx.inputs?.jitterMilliseconds)
    row.bind(peer.roundTripMilliseconds)
    row.bind(HistoryCodes.code(peer.roundTripSource))
    row.bind(peer.rxPackets)
    row.bind(peer.rxLost)
    row.bind(peer.txPackets)
    row.bind(peer.rxBitsPerSecond)
    row.bind(peer.streams)
    Self.bindMedia(peer.media, to: &row)
    try row.execute()
  }

  /// The media columns of a peer's row (docs/media.md): NULL where the peer has none.
  static func bindMedia(_ media: PeerMedia?, to row: inout SQLiteRowBinder) {
    func video(_ direction: DirectionMedia?) {
      let has = (direction?.videoStreams ?? 0) > 0
      row.bind(has ? direction?.window.framesReceived : nil)
      row.bind(has ? direction?.framesPerSecond : nil)
      row.bind(has ? direction?.window.freezes : nil)
      row.bind(has ? direction?.window.freezesSeconds : nil)
    }
    func audio(_ direction: DirectionMedia?) {
      row.bind((direction?.audioStreams ?? 0) > 0 ? direction?.window.concealedSeconds : nil)
    }
    func feedback(_ direction: DirectionMedia?) {
      let has = direction.map { !$0.feedbackTotal.isEmpty } ?? false
      row.bind(has ? direction?.feedbackWindow.nackMessages : nil)
      row.bind(has ? direction?.feedbackWindow.pictureLossIndications : nil)
    }
    let rx = media?.rx
    video(rx)
    let hasRxVideo = (rx?.videoStreams ?? 0) > 0
    row.bind(hasRxVideo ? rx?.window.pauses : nil)
    row.bind(hasRxVideo ? rx?.window.pausesSeconds : nil)
    video(media?.tx)
    audio(rx)
    audio(media?.tx)
    feedback(rx)
    feedback(media?.tx)
  }

  private func insertStreamRow(_ stream: StreamWindow, id: Int64, time: Double, db: Database)
    throws
  {
    try db.cachedStatement(
      sql: """
        INSERT OR REPLACE INTO stream_ticks (time, stream_id, packets, expected, lost,
          loss_ratio, duplicates, late, bitrate_bps, jitter_ms, rtt_ms, state)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(arguments: [
      time, id, stream.packets, stream.expected, stream.lost, stream.lossRatio, stream.duplicates,
      stream.late, stream.bitsPerSecond, stream.jitterMilliseconds, stream.roundTripMilliseconds,
      HistoryCodes.code(stream.state),
    ])
  }

  private func insertEvent(_ event: EngineEvent, peerID: Int64, db: Database) throws {
    try db.cachedStatement(
      sql: """
        INSERT INTO events (time, peer_id, kind, previous_state, reason, alert_id)
        VALUES (?, ?, ?, ?, ?, ?)
        """
    ).execute(arguments: [
      event.time.secondsSinceEpoch, peerID, event.kind.rawValue, event.previousState?.rawValue,
      event.endReason?.rawValue, event.alert?.id,
    ])
  }

  /// A firing alert is inserted once; its resolution fills in the end (and inserts the whole
  /// alert if its firing tick was never written).
  private func upsertAlert(_ alert: Alert, peerID: Int64, db: Database) throws {
    let labels = Self.json(alert.labels)
    try db.cachedStatement(
      sql: """
        INSERT INTO alerts (id, run_id, rule, severity, peer_id, labels, summary, fired_at,
          resolved_at, end_reason)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET resolved_at = excluded.resolved_at,
          end_reason = excluded.end_reason
        WHERE excluded.resolved_at IS NOT NULL
        """
    ).execute(arguments: [
      alert.id, runID, alert.rule, alert.severity.rawValue, peerID, labels, alert.summary,
      alert.start.secondsSinceEpoch, alert.end?.secondsSinceEpoch,
      alert.state == .resolved ? "resolved" : nil,
    ])
  }

  private func peerID(_ name: String, at time: Double, db: Database, new: inout [String: Int64])
    throws -> Int64
  {
    if let id = peerIDs[name] ?? new[name] { return id }
    try db.cachedStatement(
      sql: "INSERT INTO peers (name, first_seen) VALUES (?, ?) ON CONFLICT(name) DO NOTHING"
    ).execute(arguments: [name, time])
    let id = try Int64.fetchOne(
      db, sql: "SELECT id FROM peers WHERE name = ?", arguments: [name])
    guard let id else { throw HistoryError("peer \(name) vanished while being written") }
    new[name] = id
    return id
  }

  private func streamID(
    _ stream: StreamWindow, at time: Double, db: Database, new: inout [StreamKey: Int64]
  ) throws -> Int64 {
    if let id = streamIDs[stream.key] ?? new[stream.key] { return id }
    let source = stream.key.source.description
    let destination = stream.key.destination.description
    try db.cachedStatement(
      sql: """
        INSERT INTO streams (ssrc, source, destination, direction, role, first_seen)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
        """
    ).execute(arguments: [
      Int64(stream.key.ssrc), source, destination, stream.direction.rawValue,
      stream.role.rawValue, time,
    ])
    let id = try Int64.fetchOne(
      db, sql: "SELECT id FROM streams WHERE ssrc = ? AND source = ? AND destination = ?",
      arguments: [Int64(stream.key.ssrc), source, destination])
    guard let id else { throw HistoryError("stream \(stream.key.ssrc) vanished while written") }
    new[stream.key] = id
    return id
  }

  /// Labels as a JSON object, keys sorted: how the `alerts` table stores them.
  static func json(_ labels: [String: String]) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(labels)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}
