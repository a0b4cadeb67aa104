/// The figures of `peer_minutes` and `peer_hours`: how a minute is made of a peer's ticks, and
/// how rows of a span (minutes, hours, or minutes made on the fly of raw ticks) combine into a
/// longer one. Sums add, minima and maxima stay, and an average is weighed by the ticks that
/// had the figure, so that any combination equals the figure of the ticks themselves.
enum HistoryAggregate {
  enum Rule {
    case sum
    case min
    case max
    /// Weighed by the count column `counted` (by all the row's ticks where it is NULL: minutes
    /// aggregated before schema v3).
    case average(counted: String)
    /// The ticks that had the figure averaged in `averaged`.
    case count(averaged: String)
  }

  struct Column {
    var name: String
    var rule: Rule
    /// The aggregate over the ticks of a minute, `p` a peer_ticks row and `t` its ticks row.
    var ofTicks: String
  }

  /// After the key (minute or hour, peer_id), in table order.
  static let columns: [Column] = {
    var columns = [
      Column(name: "seconds", rule: .sum, ofTicks: "sum(t.interval_s)"),
      Column(name: "ticks", rule: .sum, ofTicks: "count(*)"),
      Column(name: "tx_level_max", rule: .max, ofTicks: "max(p.tx_level)"),
      Column(name: "rx_level_max", rule: .max, ofTicks: "max(p.rx_level)"),
    ]
    for direction in ["tx", "rx"] {
      for level in HistoryCodes.levels {
        columns.append(
          Column(
            name: "\(direction)_level\(level)_s", rule: .sum,
            ofTicks: "sum(CASE WHEN p.\(direction)_level = \(level) THEN t.interval_s ELSE 0 END)"))
      }
    }
    func figure(_ name: String, _ tickColumn: String, counted: String, min: Bool) -> [Column] {
      let unit = name.hasSuffix("_ms") ? "_ms" : ""
      let base = unit.isEmpty ? name : String(name.dropLast(3))
      return
        (min
        ? [Column(name: "\(base)_min\(unit)", rule: .min, ofTicks: "min(p.\(tickColumn))")] : [])
        + [
          Column(
            name: "\(base)_avg\(unit)", rule: .average(counted: counted),
            ofTicks: "avg(p.\(tickColumn))"),
          Column(name: "\(base)_max\(unit)", rule: .max, ofTicks: "max(p.\(tickColumn))"),
        ]
    }
    columns += figure("tx_mos", "tx_mos", counted: "tx_mos_ticks", min: true)
    columns += figure("rx_mos", "rx_mos", counted: "rx_mos_ticks", min: true)
    columns += figure("tx_loss", "tx_loss_ratio", counted: "tx_loss_ticks", min: false)
    columns += figure("rx_loss", "rx_loss_ratio", counted: "rx_loss_ticks", min: false)
    // Jitter comes with loss (both from the window's inputs): the loss count serves it.
    columns += figure("tx_jitter_ms", "tx_jitter_ms", counted: "tx_loss_ticks", min: false)
    columns += figure("rx_jitter_ms", "rx_jitter_ms", counted: "rx_loss_ticks", min: false)
    columns += figure("rtt_ms", "rtt_ms", counted: "rtt_ticks", min: true)
    for name in ["rx_packets", "rx_lost", "tx_packets"] {
      columns.append(Column(name: name, rule: .sum, ofTicks: "sum(p.\(name))"))
    }
    for (counted, averaged, tickColumn) in [
      ("tx_mos_ticks", "tx_mos_avg", "tx_mos"), ("rx_mos_ticks", "rx_mos_avg", "rx_mos"),
      ("tx_loss_ticks", "tx_loss_avg", "tx_loss_ratio"),
      ("rx_loss_ticks", "rx_loss_avg", "rx_loss_ratio"), ("rtt_ticks", "rtt_avg_ms", "rtt_ms"),
    ] {
      columns.append(
        Column(name: counted, rule: .count(averaged: averaged), ofTicks: "count(p.\(tickColumn))"))
    }
    return columns
  }()

  static var names: [String] { columns.map(\.name) }

  static func column(_ name: String) -> Column? { columns.first { $0.name == name } }

  /// The columns a combination of `names` reads from the rows it combines.
  static func inputs(of names: [String]) -> [String] {
    var inputs: [String] = []
    for name in names {
      guard let column = column(name) else { continue }
      var needed = [name]
      switch column.rule {
      case .average(let counted): needed += [counted, "ticks"]
      case .count(let averaged): needed += [averaged, "ticks"]
      case .sum, .min, .max: break
      }
      for input in needed where !inputs.contains(input) { inputs.append(input) }
    }
    return inputs
  }

  /// The aggregate that combines `name` over rows of shorter spans.
  static func combined(_ name: String) -> String {
    guard let column = column(name) else { return "NULL" }
    switch column.rule {
    case .sum: return "sum(\(name))"
    case .min: return "min(\(name))"
    case .max: return "max(\(name))"
    case .average(let counted):
      let weight = "coalesce(\(counted), ticks)"
      return "sum(\(name) * \(weight)) / sum(CASE WHEN \(name) IS NOT NULL THEN \(weight) END)"
    case .count(let averaged):
      return "sum(coalesce(\(name), CASE WHEN \(averaged) IS NOT NULL THEN ticks ELSE 0 END))"
    }
  }

  /// `minute, peer_id` and `names` (all columns by default), one row per peer and minute, of
  /// the raw ticks in [?, ?) (and of one peer with `onePeer`: a third argument, its id). The
  /// ticks come first (CROSS JOIN keeps that order), each finding its rows by the primary key.
  static func minutesOfTicks(_ names: [String] = names, onePeer: Bool) -> String {
    let selected = names.compactMap(column)
    return """
      SELECT CAST(p.time / 60 AS INTEGER) * 60 AS minute, p.peer_id AS peer_id,
        \(selected.map { "\($0.ofTicks) AS \($0.name)" }.joined(separator: ", "))
      FROM ticks t CROSS JOIN peer_ticks p ON p.time = t.time
      WHERE t.time >= ? AND t.time < ?\(onePeer ? " AND p.peer_id = ?" : "")
      GROUP BY 1, 2
      """
  }

  /// How the report ranks a peer's minutes, worst first: the highest level either way, then the
  /// lowest MOS either way (5 where there is none), then the earlier minute.
  static let worstFirst = """
    max(tx_level_max, rx_level_max) DESC,
      min(coalesce(tx_mos_min, 5), coalesce(rx_mos_min, 5)), minute
    """

  /// The columns of a worst minute (`peer_worst_minutes`, and the report's windows).
  static let windowColumns = [
    "minute", "peer_id", "tx_level_max", "rx_level_max", "tx_mos_min", "rx_mos_min",
    "rx_loss_max", "tx_loss_max",
  ]
}
