import Foundation
import GRDB
import NetQualityAgent
import NetQualityCore
import NetQualityExport
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// The three formats of the history commands, for ticks, alerts and report rows.
final class HistoryOutputTests: HistoryTestCase {
  private let script = TickScript(tickCount: 10)
  private static let summary = #"rx loss 5%, "bad" since 22:14"#

  private func writeScript() throws -> DatabaseQueue {
    let writer = try makeWriter()
    let resolved = EventBuilder.alert(
      "rx_loss", peer: "10.0.0.1", firedAt: script.captureTime(3), summary: Self.summary)
    let firing = EventBuilder.alert(
      "mos_low", peer: "10.0.0.2", firedAt: script.captureTime(6), summary: "MOS 2.9")
    for tick in 0..<script.tickCount {
      var events: [EngineEvent] = []
      if tick == 3 { events = [EventBuilder.firing(resolved)] }
      if tick == 6 { events = [EventBuilder.firing(firing)] }
      if tick == 8 { events = [EventBuilder.resolved(resolved, at: script.captureTime(8))] }
      try writer.write(script.tick(tick, events: events))
    }
    return writer.database
  }

  private func tickRecords(_ database: DatabaseQueue) throws -> [HistoryOutput.Record] {
    try database.read { db in
      try HistoryQuery(from: script.start, to: script.time(2)).rows(db).map(HistoryOutput.record)
    }
  }

  private func alertRecords(_ database: DatabaseQueue) throws -> [HistoryOutput.Record] {
    try database.read { db in
      try HistoryQuery(from: script.start, to: script.newest + 1).alerts(db).map(
        HistoryOutput.record)
    }
  }

  private func reportRecords(_ database: DatabaseQueue) throws -> [HistoryOutput.Record] {
    try database.read { db in
      try HistoryReport.make(db, from: script.start, to: script.start + 60).peers.map(
        HistoryOutput.record)
    }
  }

  // MARK: - Table

  func testTableShowsUTCTimesAlignedColumnsAndDashesForNothing() throws {
    let database = try writeScript()
    let text = HistoryOutput.render(
      try tickRecords(database), format: .table, columns: HistoryOutput.tickColumns)
    let lines = text.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 1 + 6)
    XCTAssertTrue(lines[0].hasPrefix("TIME                  PEER      STATE "), lines[0])
    // Tick 0 of 10.0.0.1: tx excellent (MOS 4.0, no loss), rx unknown (no MOS, no loss).
    let first = lines[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    XCTAssertEqual(
      Array(first.prefix(8)),
      [
        "2023-11-14", "22:14:00Z", "10.0.0.1", "connected", "excellent", "unknown", "4.000",
        "0.000",
      ])
    XCTAssertEqual(first[8], "-")  // rx loss
    XCTAssertTrue(lines[4].hasPrefix("2023-11-14 22:14:02Z  10.0.0.1"), lines[4])
    // Every column starts at the same offset on every line.
    let offset = try XCTUnwrap(lines[0].range(of: "PEER")).lowerBound.utf16Offset(in: lines[0])
    for line in lines.dropFirst() {
      XCTAssertEqual(line.dropFirst(offset).prefix(7), "10.0.0.", line)
    }
    XCTAssertFalse(lines.contains { $0.hasSuffix(" ") })
  }

  func testTableTimesAreUTCWithoutFractions() {
    let text = HistoryOutput.render(
      [
        [
          ("time", .number(1_700_000_059.999)), ("fired_at", .number(0)),
          ("rtt_ms", .number(12.3456)),
        ]
      ],
      format: .table, columns: ["time", "fired_at", "rtt_ms"])
    XCTAssertEqual(
      text,
      """
      TIME                  FIRED_AT              RTT
      2023-11-14 22:14:19Z  1970-01-01 00:00:00Z  12.3 ms

      """)
  }

  /// A same-host round trip and jitter read as what they are (issue 26: "0.0 ms"); CSV and
  /// JSON keep the milliseconds as numbers.
  func testTableDurationsBelowAMillisecondAreMicroseconds() {
    let record: HistoryOutput.Record = [
      ("rtt_ms", .number(0.0864)), ("rx_jitter_ms", .number(0.0031)),
      ("tx_jitter_ms", .number(0.9996)),
    ]
    let columns = ["rtt_ms", "rx_jitter_ms", "tx_jitter_ms"]
    XCTAssertEqual(
      HistoryOutput.render([record], format: .table, columns: columns),
      """
      RTT    RX_JITTER  TX_JITTER
      86 µs  3 µs       1.0 ms

      """)
    XCTAssertEqual(
      HistoryOutput.render([record], format: .csv, columns: columns),
      "rtt_ms,rx_jitter_ms,tx_jitter_ms\n0.0864,0.0031,0.9996\n")
  }

  /// Peer and rule names come from the configuration, summaries quote them: the tables show
  /// their control characters as `\xNN`, never raw (a screen cleared, the clipboard written).
  func testTablesShowControlCharactersEscaped() throws {
    let hostile = "evil\u{1B}[2J\u{1B}]52;c;aGVsbG8=\u{07}\r\u{9B}1m"
    let writer = try makeWriter()
    let alert = EventBuilder.alert(
      "rule\u{1B}]0;t\u{07}", peer: hostile, firedAt: script.captureTime(1),
      summary: "peer \(hostile) rx quality bad")
    for tick in 0..<3 {
      try writer.write(script.tick(tick, events: tick == 1 ? [EventBuilder.firing(alert)] : []))
    }
    let text = HistoryOutput.render(
      try alertRecords(writer.database), format: .table, columns: HistoryOutput.alertColumns)
    let controls = text.unicodeScalars.filter {
      $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value))
    }
    XCTAssertEqual(controls.count, 0, text)
    XCTAssertTrue(text.contains("evil\\x1B[2J\\x1B]52;c;aGVsbG8=\\x07\\x0D\\x9B1m"), text)
    XCTAssertTrue(text.contains("rule\\x1B]0;t\\x07"), text)
    // A field holding JSON text (an object) is escaped alike.
    let object = HistoryOutput.render(
      [[("labels", .object([("peer", .string("a\u{9B}b"))]))]], format: .table,
      columns: ["labels"])
    XCTAssertEqual(object, "LABELS\n{\"peer\":\"a\\u009bb\"}\n")
  }

  // MARK: - CSV

  func testCSVQuotesCommasAndQuotesAsRFC4180Says() throws {
    let database = try writeScript()
    let text = HistoryOutput.render(
      try alertRecords(database), format: .csv, columns: HistoryOutput.alertColumns)
    XCTAssertTrue(text.hasSuffix("\n"))
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    XCTAssertEqual(lines.count, 3)
    XCTAssertEqual(lines[0], "fired_at,resolved_at,rule,severity,peer,summary,end_reason")
    XCTAssertEqual(
      lines[1],
      #"1700000046,1700000056,rx_loss,warning,10.0.0.1,"rx loss 5%, ""bad"" since 22:14",resolved"#)
    XCTAssertEqual(lines[2], "1700000052,,mos_low,warning,10.0.0.2,MOS 2.9,firing")
    let fields = Self.parseCSVLine(String(lines[1]))
    XCTAssertEqual(fields.count, HistoryOutput.alertColumns.count)
    XCTAssertEqual(fields[5], Self.summary)
  }

  func testCSVFieldsWithLineBreaksAreQuoted() {
    let text = HistoryOutput.render(
      [[("summary", .string("two\nlines")), ("peer", .null), ("rtt_ms", .number(0.5))]],
      format: .csv, columns: ["summary", "peer", "rtt_ms"])
    XCTAssertEqual(text, "summary,peer,rtt_ms\n\"two\nlines\",,0.5\n")
  }

  // MARK: - JSON

  func testJSONTicksParseBackToTheFieldsWritten() throws {
    let database = try writeScript()
    let objects = try Self.parseJSON(
      HistoryOutput.render(try tickRecords(database), format: .json, columns: []))
    XCTAssertEqual(objects.count, 6)
    for (index, object) in objects.enumerated() {
      let tick = index / 3
      let values = script.values(tick: tick, peer: index % 3)
      XCTAssertEqual(object["time"] as? Double, script.time(tick))
      XCTAssertEqual(object["interval_s"] as? Double, 2)
      XCTAssertEqual(object["peer"] as? String, values.name)
      XCTAssertEqual(object["state"] as? String, values.state.rawValue)
      XCTAssertEqual(object["tx_quality"] as? Int, values.txLevel.rawValue)
      XCTAssertEqual(object["rx_quality_name"] as? String, values.rxLevel.name)
      assertNumber(object["tx_mos"], values.txMOS, "tx_mos")
      assertNumber(object["rx_mos"], values.rxMOS, "rx_mos")
      assertNumber(object["mos"], [values.txMOS, values.rxMOS].compactMap { $0 }.min(), "mos")
      assertNumber(object["tx_loss_ratio"], values.txLossRatio, "tx_loss_ratio")
      assertNumber(object["rx_jitter_ms"], values.rxJitterMilliseconds, "rx_jitter_ms")
      assertNumber(object["rtt_ms"], values.roundTripMilliseconds, "rtt_ms")
      XCTAssertEqual(object["rx_packets"] as? Int, Int(values.rxPackets))
      XCTAssertEqual(object["rx_bitrate_bps"] as? Double, values.rxBitsPerSecond)
      XCTAssertEqual(object["streams"] as? Int, values.streams)
      XCTAssertEqual(object["tx_source"] as? String, values.txSource?.rawValue)
      // Missing figures are null, not absent.
      XCTAssertTrue(object.keys.contains("rx_mos"))
      if values.rxMOS == nil { XCTAssertTrue(object["rx_mos"] is NSNull) }
    }
  }

  func testJSONAlertsParseBackWithTheirLabelsAndDuration() throws {
    let database = try writeScript()
    let objects = try Self.parseJSON(
      HistoryOutput.render(try alertRecords(database), format: .json, columns: []))
    XCTAssertEqual(objects.count, 2)
    XCTAssertEqual(objects[0]["id"] as? String, "rx_loss:10.0.0.1:1700000046000")
    XCTAssertEqual(objects[0]["summary"] as? String, Self.summary)
    XCTAssertEqual(objects[0]["labels"] as? String, #"{"direction":"rx","peer":"10.0.0.1"}"#)
    XCTAssertEqual(objects[0]["fired_at"] as? Double, script.time(3))
    XCTAssertEqual(objects[0]["resolved_at"] as? Double, script.time(8))
    XCTAssertEqual(objects[0]["duration_s"] as? Double, 10)
    XCTAssertEqual(objects[0]["end_reason"] as? String, "resolved")
    XCTAssertEqual(objects[1]["peer"] as? String, "10.0.0.2")
    XCTAssertTrue(objects[1]["resolved_at"] is NSNull)
    XCTAssertTrue(objects[1]["duration_s"] is NSNull)
    XCTAssertEqual(objects[1]["end_reason"] as? String, "firing")
  }

  func testJSONReportParsesBackToTheReport() throws {
    let database = try writeScript()
    let report = try database.read { db in
      try HistoryReport.make(db, from: script.start, to: script.start + 60)
    }
    let objects = try Self.parseJSON(
      HistoryOutput.render(try reportRecords(database), format: .json, columns: []))
    XCTAssertEqual(objects.count, 3)
    for (object, peer) in zip(objects, report.peers) {
      XCTAssertEqual(object["peer"] as? String, peer.peer)
      XCTAssertEqual(object["seconds"] as? Double, 20)
      let txLevels = try XCTUnwrap(object["tx_level_seconds"] as? [String: Double])
      for level in QualityLevel.allCases {
        XCTAssertEqual(txLevels[level.name], peer.txLevelSeconds[level.rawValue], level.name)
      }
      let rxLevels = try XCTUnwrap(object["rx_level_seconds"] as? [String: Double])
      XCTAssertEqual(rxLevels.values.reduce(0, +), 20)
      let known = peer.rxLevelSeconds[1...].reduce(0, +)
      let poor = peer.rxLevelSeconds[3...].reduce(0, +)
      if known > 0 {
        XCTAssertEqual(
          try XCTUnwrap(object["rx_poor_or_worse"] as? Double), poor / known, accuracy: 1e-12)
      } else {
        XCTAssertTrue(object["rx_poor_or_worse"] is NSNull)
      }
      XCTAssertEqual(
        try XCTUnwrap(object["tx_mos_avg"] as? Double), try XCTUnwrap(peer.txMOSAverage),
        accuracy: 1e-12)
      XCTAssertEqual(object["rx_packets"] as? Int, Int(peer.rxPackets))
      XCTAssertEqual(object["alerts"] as? Int, peer.alertsFired)
      let windows = try XCTUnwrap(object["worst_windows"] as? [[String: Any]])
      XCTAssertEqual(windows.count, peer.worstWindows.count)
      XCTAssertEqual(windows.first?["minute"] as? Double, peer.worstWindows.first?.minute)
      XCTAssertEqual(object["worst_minute"] as? Double, peer.worstWindows.first?.minute)
    }
    XCTAssertEqual(objects.map { $0["alerts"] as? Int }, [1, 1, 0])
  }

  // MARK: - Helpers

  /// A parsed JSON number against the value written. Foundation's parser on Linux is not
  /// correctly rounded (3.6000000000000005 reads back as 3.6000000000000014), so the last
  /// bits are not compared; nil stands for JSON null.
  private func assertNumber(
    _ parsed: Any?, _ expected: Double?, _ name: String, line: UInt = #line
  ) {
    guard let expected else {
      XCTAssertTrue(parsed is NSNull, "\(name): \(String(describing: parsed))", line: line)
      return
    }
    guard let number = parsed as? Double else {
      XCTFail("\(name): \(String(describing: parsed)) is no number", line: line)
      return
    }
    XCTAssertEqual(number, expected, accuracy: 1e-12, name, line: line)
  }

  private static func parseJSON(_ text: String) throws -> [[String: Any]] {
    XCTAssertTrue(text.hasSuffix("]\n"))
    let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try XCTUnwrap(parsed as? [[String: Any]])
  }

  /// One RFC 4180 record: fields split at commas outside quotes, quotes undoubled.
  private static func parseCSVLine(_ line: String) -> [String] {
    var fields: [String] = []
    var field = ""
    var quoted = false
    var characters = Array(line)[...]
    while let character = characters.popFirst() {
      if quoted {
        if character == "\"" {
          if characters.first == "\"" {
            field.append("\"")
            characters.removeFirst()
          } else {
            quoted = false
          }
        } else {
          field.append(character)
        }
      } else if character == "\"" {
        quoted = true
      } else if character == "," {
        fields.append(field)
        field = ""
      } else {
        field.append(character)
      }
    }
    fields.append(field)
    return fields
  }
}
