import ArgumentParser
import Foundation
import Glibc
import NetQualityAgent
import NetQualityCore
import NetQualityExport

/// What `top` shows and how it reacts to keys; knows nothing of the terminal.
struct TopView {
  enum SortKey: String {
    case level, loss, jitter, peer

    /// The agent's order for this key (`sort=` of `/api/v1/peers`).
    var apiSort: String {
      switch self {
      case .level: "worst"
      case .loss: "loss"
      case .jitter: "jitter"
      case .peer: "name"
      }
    }
  }

  struct Row {
    var peer: String
    var state: String
    var rx: Int
    var tx: Int
    var mos: Double?
    /// Loss each way: rx measured here, tx as the peer reports it (or the probes' forward way).
    var loss: Double?
    var txLoss: Double? = nil
    var jitter: Double?
    var rtt: Double?
    /// What measured the peer: rtp, probe or rtp+probe.
    var source: String
    /// Incoming video (docs/media.md): frames a second in the tick, freezes so far; nil
    /// without video.
    var videoFramesPerSecond: Double? = nil
    var videoFreezes: Int? = nil
  }

  var color: Bool
  var rows: [Row] = []
  /// Peers in the tick and those the filter matched; nil from an agent that does not page
  /// (sends every peer), whose rows are then sorted and filtered here.
  var total: Int?
  var matched = 0
  /// Peers at each level (`QualityLevel` numbers) among those matched, per direction.
  var rxLevels: [Int] = []
  var txLevels: [Int] = []
  var hostRx = 0
  var hostTx = 0
  var time: Double?
  /// Alerts firing on the agent (nil from an agent that does not say).
  var alertsFiring: Int?
  var error: String?
  var sort = SortKey.level
  var filter = ""
  /// Non-nil while the filter is being typed.
  var editing: String?

  /// The name of a level number from the server; a number outside 0...6 (a newer or broken
  /// server) is shown as it is instead of indexing past a table.
  static func levelName(_ value: Int) -> String {
    QualityLevel(rawValue: value)?.name ?? "level \(value)"
  }

  /// Lines above the peer rows: the title, the keys, the level counts, the column names.
  static let headerLines = 4

  /// The request for what fits on a screen of `rows` lines: the first page of the agent's
  /// order for the sort key, filtered by the agent, never the whole list.
  func requestPath(rows: Int) -> String {
    let limit = min(1000, max(1, rows - Self.headerLines))
    var path = "/api/v1/peers?limit=\(limit)&sort=\(sort.apiSort)"
    if !filter.isEmpty { path += "&peer_contains=" + Self.percentEncoded(filter) }
    return path
  }

  /// RFC 3986 section 2: everything but the unreserved characters as %XX of its UTF-8.
  static func percentEncoded(_ text: String) -> String {
    let unreserved = Set(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    return text.utf8.map { byte in
      unreserved.contains(byte)
        ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }.joined()
  }

  mutating func update(from endpoint: HTTPEndpoint, path: String) {
    do {
      try apply(try endpoint.get(path))
      error = nil
    } catch {
      self.error = "\(endpoint): \(error)"
    }
  }

  /// Takes in an answer of `/api/v1/peers`.
  mutating func apply(_ body: String) throws {
    guard let document = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    else {
      throw HTTPEndpoint.Failure(description: "unexpected answer: not a JSON object")
    }
    let host = document["host"] as? [String: Any]
    hostRx = host?["rx_quality"] as? Int ?? 0
    hostTx = host?["tx_quality"] as? Int ?? 0
    time = document["time"] as? Double
    rows = (document["peers"] as? [[String: Any]] ?? []).map { peer in
      let video =
        (((peer["media"] as? [String: Any])?["rx"] as? [String: Any])?["video"])
        as? [String: Any]
      return Row(
        peer: peer["peer"] as? String ?? "?", state: peer["state"] as? String ?? "?",
        rx: peer["rx_quality"] as? Int ?? 0, tx: peer["tx_quality"] as? Int ?? 0,
        mos: peer["mos"] as? Double, loss: peer["rx_loss_ratio"] as? Double,
        txLoss: peer["tx_loss_ratio"] as? Double,
        jitter: peer["rx_jitter_ms"] as? Double, rtt: peer["rtt_ms"] as? Double,
        source: (peer["sources"] as? [String]).map {
          // "probe?": possibly spoofed, as the dashboard marks it.
          $0.joined(separator: "+")
            + (((peer["probe"] as? [String: Any])?["possibly_spoofed"] as? Bool) == true ? "?" : "")
        } ?? "-",
        videoFramesPerSecond: video?["frames_per_second"] as? Double,
        videoFreezes: video.map { ($0["total"] as? [String: Any])?["freeze_count"] as? Int ?? 0 })
    }
    total = document["total"] as? Int
    alertsFiring = document["alerts_firing"] as? Int
    matched = document["matched"] as? Int ?? rows.count
    let levels = document["levels"] as? [String: [String: Int]]
    func counts(_ direction: String) -> [Int] {
      QualityLevel.allCases.map { levels?[direction]?[$0.name] ?? 0 }
    }
    rxLevels = counts("rx")
    txLevels = counts("tx")
  }

  /// Returns false when the view should close.
  mutating func handle(_ key: UInt8) -> Bool {
    if var text = editing {
      switch key {
      case 13, 10:
        filter = text
        editing = nil
      case 27:
        editing = nil
      case 127, 8:
        if !text.isEmpty { text.removeLast() }
        editing = text
      case 32...126:
        text.append(Character(UnicodeScalar(key)))
        editing = text
      default:
        break
      }
      return true
    }
    switch key {
    case UInt8(ascii: "q"), 3: return false
    case UInt8(ascii: "l"): sort = .level
    case UInt8(ascii: "o"): sort = .loss
    case UInt8(ascii: "j"): sort = .jitter
    case UInt8(ascii: "p"): sort = .peer
    case UInt8(ascii: "/"): editing = ""
    default: break
    }
    return true
  }

  var shownRows: [Row] {
    // The agent sorted and filtered the page.
    if total != nil { return rows }
    let filtered = filter.isEmpty ? rows : rows.filter { $0.peer.contains(filter) }
    switch sort {
    case .level:
      return filtered.sorted { (max($0.rx, $0.tx), $1.peer) > (max($1.rx, $1.tx), $0.peer) }
    case .loss: return filtered.sorted { ($0.loss ?? -1, $1.peer) > ($1.loss ?? -1, $0.peer) }
    case .jitter: return filtered.sorted { ($0.jitter ?? -1, $1.peer) > ($1.jitter ?? -1, $0.peer) }
    case .peer: return filtered.sorted { $0.peer < $1.peer }
    }
  }

  /// `matched/total`, or the rows' count from an agent that does not page.
  var peerCount: String {
    total.map { "\(matched)/\($0)" } ?? "\(rows.count)"
  }

  /// A column of the peer table: its heading, width (0: the peer's, fitted), alignment, and
  /// its place in what is dropped first on a narrow terminal (a higher `keep` goes first).
  struct Column: Sendable {
    var title: String
    var width: Int
    var right: Bool
    var keep: Int
    var cell: @Sendable (TopView, Row) -> String
  }

  /// In display order. At 80 columns the peer, its levels, state, MOS, loss each way and RTT
  /// fit; jitter and source come with more room.
  static let columns: [Column] = [
    Column(title: "PEER", width: 0, right: false, keep: 0) { _, row in
      TerminalText.sanitized(row.peer)
    },
    Column(title: "STATE", width: 12, right: false, keep: 3) { _, row in
      TerminalText.sanitized(row.state)
    },
    Column(title: "RX", width: 9, right: false, keep: 1) { view, row in
      view.colored(TopView.pad(TopView.levelName(row.rx), 9), level: row.rx)
    },
    Column(title: "TX", width: 9, right: false, keep: 2) { view, row in
      view.colored(TopView.pad(TopView.levelName(row.tx), 9), level: row.tx)
    },
    Column(title: "MOS", width: 4, right: true, keep: 4) { _, row in
      row.mos.map { String(format: "%.2f", $0) } ?? "-"
    },
    Column(title: "RX LOSS", width: 7, right: true, keep: 5) { _, row in
      row.loss.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
    },
    Column(title: "TX LOSS", width: 7, right: true, keep: 6) { _, row in
      row.txLoss.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
    },
    Column(title: "JITTER", width: 8, right: true, keep: 9) { _, row in
      DurationText.milliseconds(row.jitter)
    },
    Column(title: "RTT", width: 8, right: true, keep: 7) { _, row in
      DurationText.milliseconds(row.rtt)
    },
    Column(title: "SOURCE", width: 9, right: false, keep: 8) { _, row in
      TerminalText.sanitized(row.source)
    },
    // Only when a peer shown sends video (`layout(width:names:video:)`).
    Column(title: "VIDEO", width: 14, right: true, keep: 10) { _, row in
      guard let freezes = row.videoFreezes else { return "-" }
      let fps = row.videoFramesPerSecond.map { String(format: "%.1f", $0) } ?? "-"
      return "\(fps) fps \(freezes) frz"
    },
  ]

  /// The peer column at least this wide (an IPv4 address and a space), at most this much.
  static let peerWidth = 15...40

  /// The columns that fit `width` terminal columns, and the peer column's width: columns by
  /// `keep` while they fit beside the narrowest peer column, then the peer column widened to
  /// its longest name as far as room allows.
  static func layout(width: Int, names: [String], video: Bool = false)
    -> (columns: [Column], peerWidth: Int)
  {
    var room = width - peerWidth.lowerBound
    var kept: Set<String> = ["PEER"]
    for column in columns.filter({ $0.width > 0 && (video || $0.title != "VIDEO") }).sorted(by: {
      $0.keep < $1.keep
    }) {
      guard room >= column.width + 1 else { continue }
      room -= column.width + 1
      kept.insert(column.title)
    }
    let longest = names.map { TerminalText.sanitized($0).count }.max() ?? 0
    let peer = min(
      peerWidth.upperBound, max(peerWidth.lowerBound, min(longest, peerWidth.lowerBound + room)))
    return (columns.filter { kept.contains($0.title) }, peer)
  }

  func render(size: (rows: Int, columns: Int)) -> [String] {
    var lines: [String] = []
    let when =
      time.map {
        CaptureTime(nanosecondsSinceEpoch: Int64($0 * 1000) * 1_000_000).rfc3339.prefix(19) + "Z"
      } ?? "no tick yet"
    lines.append(
      "netquality top  \(when)" + (alertsFiring.map { "  alerts \($0)" } ?? "")
        + "  host rx \(Self.levelName(hostRx)) tx \(Self.levelName(hostTx))  "
        + "peers \(peerCount)  sort: \(sort.rawValue)"
        + (filter.isEmpty ? "" : "  filter: \(filter)"))
    lines.append(
      editing.map { "filter: \($0)_" }
        ?? "keys: l level  o loss  j jitter  p peer  / filter  q quit")
    lines.append("rx: " + Self.levelCounts(rxLevels) + "   tx: " + Self.levelCounts(txLevels))
    if let error { lines.append("! " + TerminalText.sanitized(error)) }
    let shown = Array(shownRows.prefix(max(0, size.rows - lines.count - 1)))
    let (columns, peerWidth) = Self.layout(
      width: size.columns, names: shown.map(\.peer),
      video: shown.contains { $0.videoFreezes != nil })
    func line(_ cells: [String]) -> String {
      zip(columns, cells).map { column, cell in
        let width = column.width == 0 ? peerWidth : column.width
        // Levels come coloured and padded already (escape codes take no columns).
        if column.title == "RX" || column.title == "TX" { return cell }
        return column.right ? Self.right(cell, width) : Self.pad(cell, width)
      }.joined(separator: " ")
    }
    lines.append(
      line(
        columns.map { column in
          column.title == "RX" || column.title == "TX" ? Self.pad(column.title, 9) : column.title
        }))
    // Names and states are the agent's answer, sent to a terminal: no control character of
    // theirs reaches it (a window title, the clipboard, a carriage return).
    for row in shown { lines.append(line(columns.map { $0.cell(self, row) })) }
    // Fit the width: cut what does not fit (colour codes take no columns), and no trailing
    // spaces.
    return lines.map { Self.fit($0, columns: size.columns).trimmingTrailingSpaces }
  }

  /// `excellent 9990  good 5  down 2`: the levels some peers are at, best first, unknown last.
  static func levelCounts(_ counts: [Int]) -> String {
    let order = QualityLevel.allCases.filter { $0 != .unknown } + [.unknown]
    let shown = order.compactMap { level in
      counts.indices.contains(level.rawValue) && counts[level.rawValue] > 0
        ? "\(level.name) \(counts[level.rawValue])" : nil
    }
    return shown.isEmpty ? "-" : shown.joined(separator: "  ")
  }

  func colored(_ text: String, level: Int) -> String {
    guard color else { return text }
    let code: String
    switch level {
    case 1, 2: code = "32"  // green
    case 3: code = "33"  // yellow
    case 4, 5, 6: code = "31"  // red
    default: code = "2"  // dim
    }
    return "\u{1B}[\(code)m\(text)\u{1B}[0m"
  }

  /// `text` in `width` columns: padded, or cut with "…" when longer.
  static func pad(_ text: String, _ width: Int) -> String {
    text.count > width
      ? String(text.prefix(max(0, width - 1))) + "…"
      : text + String(repeating: " ", count: width - text.count)
  }

  static func right(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }

  static func fit(_ line: String, columns: Int) -> String {
    var visible = 0
    var result = ""
    var escape = false
    for character in line {
      if character == "\u{1B}" { escape = true }
      if escape {
        result.append(character)
        if character == "m" { escape = false }
        continue
      }
      guard visible < columns else { continue }
      result.append(character)
      visible += 1
    }
    return result
  }
}

extension String {
  fileprivate var trimmingTrailingSpaces: String {
    var text = self
    while text.hasSuffix(" ") { text.removeLast() }
    return text
  }
}
