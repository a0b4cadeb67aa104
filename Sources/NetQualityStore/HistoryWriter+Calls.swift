import GRDB
import NetQualityCore

extension HistoryWriter {
  /// A call that ended in the tick: the columns `netquality calls` filters and lists by, and
  /// the whole record as JSON (`record`, rendered by the tick's `renderCall`). The same call
  /// written again (a capture analysed twice into one file) replaces its row: the id is the
  /// call's, stable across replays.
  func insertCall(_ call: CallRecord, record: String, db: Database) throws {
    let hopLoss = call.hopLoss
    try db.cachedStatement(
      sql: """
        INSERT OR REPLACE INTO calls (id, run_id, kind, call_id, from_user, to_user, peers,
          start, answer, end, post_dial_delay_s, final_status, end_reason, failed, worst_level,
          min_mos, rx_packets, rx_lost, tx_packets, tx_lost, first_tick, last_tick,
          upstream_lost, relay_lost, downstream_lost, record)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(
      arguments: [
        call.id, runID, call.kind.rawValue, call.callID, call.fromUser, call.toUser,
        call.peers.joined(separator: " "), call.start.secondsSinceEpoch,
        call.answer?.secondsSinceEpoch, call.end.secondsSinceEpoch, call.postDialDelaySeconds,
        call.finalStatus, call.endReason.rawValue, call.isFailed, call.worstLevel.rawValue,
        call.minMeanOpinionScore, call.rx.packets, call.rx.lost, call.tx.packets, call.tx.lost,
        call.firstTick?.secondsSinceEpoch, call.lastTick?.secondsSinceEpoch,
        hopLoss?.upstream, hopLoss?.relay,
        hopLoss.flatMap { $0.downstreamReported ? $0.downstream : nil },
        record,
      ])
  }
}
