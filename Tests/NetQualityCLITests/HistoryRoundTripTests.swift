import Foundation
import XCTest

/// `analyze --db` then `history`, `report` and `alerts` read the same numbers the timeline
/// prints: for every shared capture, each (tick, peer) of `analyze --timeline --format jsonl`
/// comes back from the SQLite history with the same figures, and `report` agrees with counts
/// made from the timeline itself.
final class HistoryRoundTripTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-history-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  var binary: URL {
    if let override = ProcessInfo.processInfo.environment["NETQUALITY_BINARY"] {
      return URL(fileURLWithPath: override)
    }
    let runner = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
      .resolvingSymlinksInPath()
    return runner.deletingLastPathComponent().appendingPathComponent("netquality")
  }

  struct Run {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  func run(_ arguments: [String], seconds: Double = 60) throws -> Run {
    let process = try BinaryProcess(
      binary: binary, arguments: arguments, directory: directory, input: nil)
    if !process.waitForExit(seconds: seconds) {
      let signal = process.stop()
      XCTFail("\(process.commandLine) did not finish within \(seconds) s (signal \(signal))")
    }
    return Run(
      status: process.status, standardOutput: process.standardOutput,
      standardError: process.standardError)
  }

  var captures: [URL] {
    get throws {
      let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/pcaps").standardized
      guard
        let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter({
          $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng")
        }), !names.isEmpty
      else { throw XCTSkip("no shared captures at \(folder.path)") }
      return names.sorted().map { folder.appendingPathComponent($0) }
    }
  }

  /// The timeline's fields the history keeps, compared value for value.
  static let comparedFields = [
    "state", "tx_quality", "rx_quality", "rx_loss_ratio", "rx_jitter_ms", "tx_loss_ratio",
    "tx_jitter_ms", "rtt_ms", "rtt_source", "mos", "rx_packets", "rx_lost", "tx_packets",
    "rx_bitrate_bps", "streams",
  ]

  func testEveryCaptureRoundTripsThroughTheHistory() throws {
    var comparedRows = 0
    for capture in try captures {
      let name = capture.lastPathComponent
      let timeline = try run(["analyze", "--timeline", "--format", "jsonl", capture.path])
      guard timeline.status == 0 else { continue }  // no RTP: nothing to store either
      let database = directory.appendingPathComponent("\(name).db").path
      let written = try run(["analyze", "--db", database, capture.path])
      XCTAssertEqual(written.status, 0, "\(name): \(written.standardError)")
      XCTAssertEqual(written.standardOutput, "", name)

      var expected: [String: [String: Any]] = [:]
      var levelSeconds: [String: [String: [Double]]] = [:]
      var disconnects: [String: Int] = [:]
      var alertsFired: [String: Int] = [:]
      for line in timeline.standardOutput.split(separator: "\n") {
        let object = try XCTUnwrap(
          JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        if object["type"] as? String == "event", let peer = object["peer"] as? String {
          if object["kind"] as? String == "disconnected" { disconnects[peer, default: 0] += 1 }
          if object["kind"] as? String == "alert_firing" { alertsFired[peer, default: 0] += 1 }
        }
        guard object["type"] as? String == "tick", let time = object["time"] as? Double,
          let interval = object["interval_s"] as? Double,
          let peers = object["peers"] as? [[String: Any]]
        else { continue }
        for peer in peers {
          let peerName = try XCTUnwrap(peer["peer"] as? String)
          expected["\(time)|\(peerName)"] = peer
          for direction in ["tx", "rx"] {
            let level = try XCTUnwrap(peer["\(direction)_quality"] as? Int)
            levelSeconds[peerName, default: [:]][direction, default: Array(repeating: 0, count: 7)][
              level] += interval
          }
        }
      }

      let history = try run(["history", "--db", database, "--from", "0", "--format", "json"])
      XCTAssertEqual(history.status, 0, "\(name): \(history.standardError)")
      let rows = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [[String: Any]],
        name)
      XCTAssertEqual(rows.count, expected.count, "\(name): rows in the history")
      for row in rows {
        let time = try XCTUnwrap(row["time"] as? Double)
        let peer = try XCTUnwrap(row["peer"] as? String)
        let original = try XCTUnwrap(expected["\(time)|\(peer)"], "\(name): \(time) \(peer)")
        for field in Self.comparedFields {
          XCTAssertEqual(
            "\(row[field] ?? "absent")", "\(original[field] ?? "absent")",
            "\(name) \(time) \(peer) \(field)")
        }
        comparedRows += 1
      }

      let report = try run(["report", "--db", database, "--from", "0", "--format", "json"])
      XCTAssertEqual(report.status, 0, "\(name): \(report.standardError)")
      let peers = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(report.standardOutput.utf8)) as? [[String: Any]])
      XCTAssertEqual(Set(peers.compactMap { $0["peer"] as? String }), Set(levelSeconds.keys), name)
      for entry in peers {
        let peer = try XCTUnwrap(entry["peer"] as? String)
        for direction in ["tx", "rx"] {
          let seconds = try XCTUnwrap(entry["\(direction)_level_seconds"] as? [String: Double])
          let names = ["unknown", "excellent", "good", "poor", "bad", "very_bad", "down"]
          for (level, levelName) in names.enumerated() {
            XCTAssertEqual(
              seconds[levelName] ?? -1, levelSeconds[peer]?[direction]?[level] ?? 0,
              accuracy: 1e-6, "\(name) \(peer) \(direction) \(levelName)")
          }
        }
        XCTAssertEqual(entry["disconnects"] as? Int, disconnects[peer] ?? 0, "\(name) \(peer)")
        XCTAssertEqual(entry["alerts"] as? Int, alertsFired[peer] ?? 0, "\(name) \(peer)")
      }
      let alerts = try run(["alerts", "--db", database, "--from", "0", "--format", "csv"])
      XCTAssertEqual(alerts.status, 0, "\(name): \(alerts.standardError)")
      XCTAssertEqual(
        alerts.standardOutput.split(separator: "\n").count - 1,
        alertsFired.values.reduce(0, +), "\(name): alerts in the history")
    }
    XCTAssertGreaterThan(comparedRows, 100, "too few rows compared to mean anything")
  }

  func testBadRangesAndFilesAreOneLineErrors() throws {
    let database = directory.appendingPathComponent("absent.db").path
    for (arguments, status) in [
      (["history", "--db", database], Int32(1)),
      (["history", "--db", database, "--since", "yesterday"], 2),
      (["report", "--db", database, "--since", "1h", "--from", "0"], 2),
      (["alerts", "--db", database, "--format", "xml"], 2),
      (["history", "--db", database, "--from", "10", "--to", "5"], 2),
    ] {
      let result = try run(arguments)
      XCTAssertEqual(result.status, status, "\(arguments)")
      XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
      XCTAssertTrue(result.standardError.hasPrefix("netquality: error: "), result.standardError)
      XCTAssertEqual(result.standardOutput, "")
    }
    let text = directory.appendingPathComponent("text.db")
    try Data("not a database, just text\n".utf8).write(to: text)
    let result = try run(["history", "--db", text.path])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
  }
}
