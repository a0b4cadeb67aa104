import Foundation
import GRDB
import NetQualityCore
import NetQualityStore

/// Times the history as the agent's recorder uses it: `--peers` simulated peers (default
/// 1,000) at a tick every 2 s for `--days` of simulated time (default 7), each tick written
/// in its transaction by `HistoryWriter` and followed by maintenance passes until none is
/// behind, with the agent's default retention (raw 48 h, minutes 30 days). Then the questions
/// asked after an incident: a report of the last 24 h and 20 minutes of one peer's ticks.
///
///     netquality-history-bench [--peers N] [--days D] [--dir DIRECTORY] [--queries-only]
///
/// The file is `DIRECTORY/history-bench.sqlite`, made anew; `--queries-only` times the
/// questions on the file a previous run left (after the maintenance it may need, such as the
/// rollup of hours into a file written before there were hours). The last line printed is
/// JSON.
@main
struct HistoryBenchmark {
  static func main() {
    do {
      try run(BenchOptions(arguments: Array(CommandLine.arguments.dropFirst())))
    } catch {
      FileHandle.standardError.write(Data("netquality-history-bench: \(error)\n".utf8))
      exit(1)
    }
  }

  /// 2024-01-01 00:00:00 UTC.
  static let start = 1_704_067_200.0

  static func run(_ options: BenchOptions) throws {
    let path = (options.directory as NSString).appendingPathComponent("history-bench.sqlite")
    var figures: [(String, String)] = [("peers", "\(options.peers)")]
    let database: DatabaseQueue
    if options.queriesOnly {
      // A file from an older schema gets its new tables filled first (hours, for one).
      database = try HistoryDatabase.openForWriting(path: path)
      let maintaining = Stopwatch()
      try HistoryMaintenance(
        rawRetentionSeconds: options.rawRetentionSeconds,
        aggregateRetentionSeconds: options.aggregateRetentionSeconds, maxBytes: 0
      ).runToCompletion(database, final: false)
      print("maintenance brought the file up to date in \(format(maintaining.wallSeconds, 1)) s")
    } else {
      try freshFile(path)
      database = try HistoryDatabase.openForWriting(path: path)
      figures += try WriteBenchmark(options: options, database: database).run()
    }
    figures += try queries(database)
    try database.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
    }
    let fileBytes = size(path)
    let walBytes = size(path + "-wal")
    print(
      "database: \(fileBytes) bytes file + \(walBytes) bytes WAL = "
        + "\(format(Double(fileBytes + walBytes) / 1e9, 2)) GB")
    figures += [
      ("database_bytes", "\(fileBytes + walBytes)"), ("file_bytes", "\(fileBytes)"),
      ("wal_bytes", "\(walBytes)"),
    ]
    print("{" + figures.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
  }

  /// The report of the last 24 h (median of 3, then once more with each statement timed) and
  /// the last 20 minutes of the peer in the middle of the list.
  static func queries(_ database: DatabaseQueue) throws -> [(String, String)] {
    let (newest, peers) = try database.read { db in
      (
        try HistoryQuery.newestTick(db) ?? 0,
        try String.fetchAll(db, sql: "SELECT name FROM peers ORDER BY id")
      )
    }
    let reportSeconds = try median(times: 3) {
      _ = try database.read { db in
        try HistoryReport.make(db, from: newest - 86_400, to: newest + 1)
      }
    }
    let report = try database.read { db in
      db.trace(options: .profile) { event in
        if case .profile(let statement, let duration) = event {
          let sql = statement.sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
          print("  report statement \(format(duration, 3)) s: \(sql.prefix(100))...")
        }
      }
      defer { db.trace(options: .profile, nil) }
      return try HistoryReport.make(db, from: newest - 86_400, to: newest + 1)
    }
    print(
      "report of the last 24 h (\(report.peers.count) peers): \(format(reportSeconds, 3)) s "
        + "(median of 3)")
    let query = HistoryQuery(
      from: newest - 1200, to: newest + 1, peer: peers.isEmpty ? nil : peers[peers.count / 2])
    let querySeconds = try median(times: 3) { _ = try database.read { db in try query.rows(db) } }
    let queryRows = try database.read { db in try query.rows(db).count }
    print(
      "20 minutes of one peer (\(queryRows) rows): \(format(querySeconds * 1e3, 2)) ms "
        + "(median of 3)")
    return [
      ("report_24h_seconds", format(reportSeconds, 4)),
      ("query_20min_one_peer_seconds", format(querySeconds, 6)), ("query_rows", "\(queryRows)"),
    ]
  }

  /// Removes a previous run's file and its WAL.
  static func freshFile(_ path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true)
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
      try FileManager.default.removeItem(atPath: path + suffix)
    }
  }

  static func median(times: Int, _ body: () throws -> Void) throws -> Double {
    var timings: [Double] = []
    for _ in 0..<times {
      let started = Stopwatch()
      try body()
      timings.append(started.wallSeconds)
    }
    return timings.sorted()[timings.count / 2]
  }

  static func size(_ path: String) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
  }

  static func format(_ value: Double, _ places: Int) -> String {
    String(format: "%.\(places)f", value)
  }
}
