import NetQualityCore
import NetQualityExport
import NetQualityStore

extension HistoryOutput {
  /// Columns of `calls` in the table and CSV, in order; JSON gives each whole record.
  public static let callColumns = [
    "start", "kind", "call_id", "from_user", "to_user", "final_status", "end_reason",
    "setup_s", "post_dial_delay_s", "duration_s", "peers", "rx_packets", "rx_lost",
    "tx_packets", "tx_lost", "min_mos", "worst_level",
  ]

  /// A call of the history with the call record's field names (docs/calls.md).
  public static func record(_ call: HistoryCallsQuery.CallRow) -> Record {
    [
      ("id", .string(call.id)),
      ("kind", .string(call.kind)),
      ("call_id", .optional(call.callID)),
      ("from_user", .optional(call.fromUser)),
      ("to_user", .optional(call.toUser)),
      ("peers", .string(call.peers.joined(separator: " "))),
      ("start", .number(call.start)),
      ("answer", .optional(call.answer)),
      ("end", .number(call.end)),
      ("duration_s", .number(max(0, call.end - call.start))),
      ("setup_s", .optional(call.answer.map { $0 - call.start })),
      ("post_dial_delay_s", .optional(call.postDialDelaySeconds)),
      ("final_status", call.finalStatus.map { .integer(Int64($0)) } ?? .null),
      ("end_reason", .string(call.endReason)),
      ("failed", .bool(call.failed)),
      ("rx_packets", .integer(call.rxPackets)),
      ("rx_lost", call.rxLost.map(JSONValue.integer) ?? .null),
      ("tx_packets", .integer(call.txPackets)),
      ("tx_lost", call.txLost.map(JSONValue.integer) ?? .null),
      ("min_mos", .optional(call.minMOS)),
      ("worst_level", .string(call.worstLevel.name)),
      ("first_tick", .optional(call.firstTick)),
      ("last_tick", .optional(call.lastTick)),
    ]
  }

  /// A call record of the engine (`analyze --calls`) as the history's row shows it: one table
  /// for `analyze --calls` and `netquality calls`.
  public static func record(_ call: CallRecord) -> Record {
    [
      ("id", .string(call.id)),
      ("kind", .string(call.kind.rawValue)),
      ("call_id", .optional(call.callID)),
      ("from_user", .optional(call.fromUser)),
      ("to_user", .optional(call.toUser)),
      ("peers", .string(call.peers.joined(separator: " "))),
      ("start", .number(call.start.secondsSinceEpoch)),
      ("answer", .optional(call.answer?.secondsSinceEpoch)),
      ("end", .number(call.end.secondsSinceEpoch)),
      ("duration_s", .number(call.durationSeconds)),
      ("setup_s", .optional(call.answer.map { $0.seconds(since: call.start) })),
      ("post_dial_delay_s", .optional(call.postDialDelaySeconds)),
      ("final_status", call.finalStatus.map { .integer(Int64($0)) } ?? .null),
      ("end_reason", .string(call.isOpen ? "active" : call.endReason.rawValue)),
      ("failed", .bool(call.isFailed)),
      ("rx_packets", .integer(call.rx.packets)),
      ("rx_lost", call.rx.lost.map(JSONValue.integer) ?? .null),
      ("tx_packets", .integer(call.tx.packets)),
      ("tx_lost", call.tx.lost.map(JSONValue.integer) ?? .null),
      ("min_mos", .optional(call.minMeanOpinionScore)),
      ("worst_level", .string(call.worstLevel.name)),
      ("first_tick", .optional(call.firstTick?.secondsSinceEpoch)),
      ("last_tick", .optional(call.lastTick?.secondsSinceEpoch)),
    ]
  }

  /// `calls --format json`: the records as the history holds them, the objects of
  /// `/api/v1/calls` and `analyze --calls --format json`, in one array.
  public static func callsJSON(_ calls: [HistoryCallsQuery.CallRow]) -> String {
    guard !calls.isEmpty else { return "[]\n" }
    return "[\n" + calls.map(\.record).joined(separator: ",\n") + "\n]\n"
  }
}
