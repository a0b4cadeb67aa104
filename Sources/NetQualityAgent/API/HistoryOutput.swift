import NetQualityCore
import NetQualityExport
import NetQualityStore

/// The formats the history commands write: an aligned table for people, CSV for spreadsheets,
/// JSON (one array of objects) for programs. One list of named fields per record feeds all
/// three, so the formats always say the same thing; JSON field names are the timeline's
/// (`analyze --timeline --format jsonl`), so offline and live data read alike.
public enum HistoryFormat: String, Sendable, CaseIterable {
  case table, csv, json
}

public enum HistoryOutput {
  public typealias Record = [(String, JSONValue)]

  /// Fields holding Unix seconds: the table shows them as UTC times.
  static let timeFields: Set<String> = [
    "time", "fired_at", "resolved_at", "from", "to", "worst_minute", "start", "answer", "end",
    "first_tick", "last_tick",
  ]

  /// Fields holding milliseconds (round trips, jitter): the table prints them as the status
  /// page does, microseconds below 1 ms (`DurationText`); CSV and JSON keep the numbers.
  static let durationFields: Set<String> = [
    "tx_jitter_ms", "rx_jitter_ms", "rtt_ms", "rtt_avg_ms", "rtt_max_ms",
  ]

  public static func render(_ records: [Record], format: HistoryFormat, columns: [String]) -> String
  {
    switch format {
    case .json:
      return JSONValue.array(records.map { .object($0) }).text + "\n"
    case .csv:
      var lines = [columns.joined(separator: ",")]
      for record in records {
        let values = Dictionary(record, uniquingKeysWith: { first, _ in first })
        lines.append(columns.map { csvField(values[$0] ?? .null) }.joined(separator: ","))
      }
      return lines.joined(separator: "\n") + "\n"
    case .table:
      // Durations carry their unit in each field ("86 µs", "12.3 ms"), not in the heading.
      var rows = [
        columns.map { column in
          (durationFields.contains(column) ? String(column.dropLast(3)) : column).uppercased()
        }
      ]
      for record in records {
        let values = Dictionary(record, uniquingKeysWith: { first, _ in first })
        rows.append(
          columns.map { column in
            let value = values[column] ?? .null
            if durationFields.contains(column), case .number(let milliseconds) = value {
              return DurationText.milliseconds(milliseconds, places: 1)
            }
            return tableField(value, time: timeFields.contains(column))
          })
      }
      var widths = [Int](repeating: 0, count: columns.count)
      for row in rows {
        for (index, field) in row.enumerated() { widths[index] = max(widths[index], field.count) }
      }
      return rows.map { row in
        row.enumerated().map { index, field in
          field + String(repeating: " ", count: widths[index] - field.count)
        }.joined(separator: "  ").trimmingTrailingSpaces
      }.joined(separator: "\n") + "\n"
    }
  }

  /// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
  static func csvField(_ value: JSONValue) -> String {
    let text: String
    switch value {
    case .null: return ""
    case .string(let string): text = string
    default: text = value.text
    }
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      return text
    }
    return "\"" + text.replacing("\"", with: "\"\"") + "\""
  }

  /// A field as the table shows it. Text (peer and rule names, alert summaries, labels) is
  /// what a configuration or the wire said, printed through `TerminalText`.
  static func tableField(_ value: JSONValue, time: Bool) -> String {
    switch value {
    case .null: return "-"
    case .string(let string): return TerminalText.sanitized(string)
    case .integer(let integer): return String(integer)
    case .number(let number):
      if time {
        // UTC, and said so: "2026-11-23 14:00:00Z".
        return String(
          CaptureTime(nanosecondsSinceEpoch: Int64((number * 1000).rounded()) * 1_000_000)
            .rfc3339.prefix(19)
        ).replacing("T", with: " ") + "Z"
      }
      return DecimalText.fixed(number, places: abs(number) >= 100 ? 0 : 3)
    default: return TerminalText.sanitized(value.text)
    }
  }

  // MARK: - Records

  /// Columns of `history`, in table order.
  public static let tickColumns = [
    "time", "peer", "state", "tx_quality_name", "rx_quality_name", "mos", "tx_loss_ratio",
    "rx_loss_ratio", "tx_jitter_ms", "rx_jitter_ms", "rtt_ms", "rx_packets", "rx_lost",
    "tx_packets", "rx_bitrate_bps", "streams", "tx_source", "rx_source",
  ]

  /// A peer at a tick, with the timeline's field names.
  public static func record(_ row: HistoryQuery.TickRow) -> Record {
    let mos = [row.txMOS, row.rxMOS].compactMap { $0 }.min()
    return [
      ("time", .number(row.time)),
      ("interval_s", .number(row.intervalSeconds)),
      ("peer", .string(row.peer)),
      ("state", .string(row.state.rawValue)),
      ("tx_quality", .integer(Int64(row.txLevel.rawValue))),
      ("rx_quality", .integer(Int64(row.rxLevel.rawValue))),
      ("tx_quality_name", .string(row.txLevel.name)),
      ("rx_quality_name", .string(row.rxLevel.name)),
      ("tx_loss_ratio", .optional(row.txLossRatio)),
      ("rx_loss_ratio", .optional(row.rxLossRatio)),
      ("tx_jitter_ms", .optional(row.txJitterMilliseconds)),
      ("rx_jitter_ms", .optional(row.rxJitterMilliseconds)),
      ("rtt_ms", .optional(row.roundTripMilliseconds)),
      ("rtt_source", .optional(row.roundTripSource?.rawValue)),
      ("mos", .optional(mos)),
      ("tx_mos", .optional(row.txMOS)),
      ("rx_mos", .optional(row.rxMOS)),
      ("rx_packets", .integer(row.rxPackets)),
      ("rx_lost", .integer(row.rxLost)),
      ("tx_packets", .integer(row.txPackets)),
      ("rx_bitrate_bps", .number(row.rxBitsPerSecond)),
      ("streams", .integer(Int64(row.streams))),
      ("tx_source", .optional(row.txSource?.rawValue)),
      ("rx_source", .optional(row.rxSource?.rawValue)),
    ]
  }

  public static let alertColumns = [
    "fired_at", "resolved_at", "rule", "severity", "peer", "summary", "end_reason",
  ]

  public static func record(_ alert: HistoryQuery.AlertRow) -> Record {
    [
      ("id", .string(alert.id)),
      ("rule", .string(alert.rule)),
      ("severity", .string(alert.severity)),
      ("peer", .optional(alert.peer)),
      ("labels", .string(alert.labels)),
      ("summary", .string(alert.summary)),
      ("fired_at", .number(alert.firedAt)),
      ("resolved_at", .optional(alert.resolvedAt)),
      ("end_reason", .string(alert.endReason ?? "firing")),
      ("duration_s", .optional(alert.resolvedAt.map { $0 - alert.firedAt })),
    ]
  }

  public static let reportColumns = [
    "peer", "seconds", "tx_excellent_good", "rx_excellent_good", "tx_poor_or_worse",
    "rx_poor_or_worse", "rx_mos_avg", "rx_mos_min", "rx_loss_avg", "disconnects", "alerts",
    "worst_minute", "worst_level",
  ]

  /// A peer's report: seconds at each level by name each way, and the table's summaries (the
  /// share of time at excellent or good, and at poor or worse, of the time with a level).
  public static func record(_ peer: HistoryReport.Peer) -> Record {
    func levels(_ seconds: [Double]) -> JSONValue {
      .object(
        QualityLevel.allCases.map { ($0.name, .number(seconds[$0.rawValue])) })
    }
    func share(_ seconds: [Double], _ levels: ClosedRange<Int>) -> JSONValue {
      let known = seconds[1...].reduce(0, +)
      guard known > 0 else { return .null }
      return .number(levels.map { seconds[$0] }.reduce(0, +) / known)
    }
    let worst = peer.worstWindows.first
    return [
      ("peer", .string(peer.peer)),
      ("seconds", .number(peer.seconds)),
      ("tx_level_seconds", levels(peer.txLevelSeconds)),
      ("rx_level_seconds", levels(peer.rxLevelSeconds)),
      ("tx_excellent_good", share(peer.txLevelSeconds, 1...2)),
      ("rx_excellent_good", share(peer.rxLevelSeconds, 1...2)),
      ("tx_poor_or_worse", share(peer.txLevelSeconds, 3...6)),
      ("rx_poor_or_worse", share(peer.rxLevelSeconds, 3...6)),
      ("tx_mos_avg", .optional(peer.txMOSAverage)),
      ("tx_mos_min", .optional(peer.txMOSMin)),
      ("rx_mos_avg", .optional(peer.rxMOSAverage)),
      ("rx_mos_min", .optional(peer.rxMOSMin)),
      ("rx_loss_avg", .optional(peer.rxLossAverage)),
      ("tx_loss_avg", .optional(peer.txLossAverage)),
      ("rtt_avg_ms", .optional(peer.rttAverageMilliseconds)),
      ("rtt_max_ms", .optional(peer.rttMaxMilliseconds)),
      ("rx_packets", .integer(peer.rxPackets)),
      ("rx_lost", .integer(peer.rxLost)),
      ("tx_packets", .integer(peer.txPackets)),
      ("disconnects", .integer(Int64(peer.disconnects))),
      ("alerts", .integer(Int64(peer.alertsFired))),
      ("worst_minute", .optional(worst?.minute)),
      ("worst_level", .optional(worst.map { max($0.txLevel, $0.rxLevel).name })),
      (
        "worst_windows",
        .array(
          peer.worstWindows.map { window in
            .object([
              ("minute", .number(window.minute)),
              ("tx_quality", .integer(Int64(window.txLevel.rawValue))),
              ("rx_quality", .integer(Int64(window.rxLevel.rawValue))),
              ("mos_min", .optional(window.mosMin)),
              ("rx_loss_max", .optional(window.rxLossMax)),
              ("tx_loss_max", .optional(window.txLossMax)),
            ])
          })
      ),
    ]
  }
}

extension String {
  fileprivate var trimmingTrailingSpaces: String {
    var result = self
    while result.last == " " { result.removeLast() }
    return result
  }
}
