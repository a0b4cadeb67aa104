import ArgumentParser
import Foundation
import GRDB
import NetQualityAgent
import NetQualityConfig
import NetQualityStore

/// What `history`, `alerts` and `report` share: the database, the range, the format.
struct HistoryOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "History database (default: storage_path of --config, else \(AgentConfiguration.defaultStoragePath)).",
      valueName: "FILE"))
  var db: String?

  @Option(help: "The agent's YAML configuration, for its storage_path.")
  var config: String?

  @Option(
    help: ArgumentHelp("How far back from now (e.g. 90s, 15m, 1h, 2d).", valueName: "DURATION"))
  var since: String?

  @Option(
    help: ArgumentHelp(
      "Start: Unix seconds or a UTC time (2026-11-23T14:00:00Z, '2026-11-23 14:00').",
      valueName: "TIME"))
  var from: String?

  @Option(help: ArgumentHelp("End (default: now).", valueName: "TIME"))
  var to: String?

  @Option(help: "Only this peer (its address or peer group name).")
  var peer: String?

  @Option(help: "Output: table, csv or json.")
  var format: String = "table"

  /// The file to read: --db, else the configuration's, else the default.
  func databasePath() throws -> String {
    if let db { return db }
    if config == nil {
      // Not silently: the default is the system service's file, perhaps not the one meant.
      warn(
        "reading \(AgentConfiguration.defaultStoragePath) (the default storage_path; "
          + "--db FILE or --config FILE for another)")
    }
    let configuration = try config.map(loadConfiguration) ?? AgentConfiguration()
    guard !configuration.storagePath.isEmpty else {
      throw fail("\(config ?? "the configuration") sets no storage_path; give --db FILE", code: 2)
    }
    return configuration.storagePath
  }

  func outputFormat() throws -> HistoryFormat {
    guard let format = HistoryFormat(rawValue: format) else {
      throw fail("--format \(format): use table, csv or json", code: 2)
    }
    return format
  }

  func range(defaultSinceSeconds: Double) throws -> (from: Double, to: Double) {
    do {
      return try HistoryTimeRange.resolve(
        since: since, from: from, to: to, defaultSinceSeconds: defaultSinceSeconds,
        now: Date().timeIntervalSince1970)
    } catch {
      throw fail(error.description, code: 2)
    }
  }

  /// Opens the database read-only (safe while the agent writes) and runs `body` in one read
  /// transaction, so every figure comes from the same committed tick. `--peer` must name a
  /// peer the history scored, unless `checkingPeer` is false (a call's peer may have been
  /// seen in its signalling only).
  func read<T>(checkingPeer: Bool = true, _ body: (Database) throws -> T) throws -> T {
    let path = try databasePath()
    do {
      let queue = try HistoryDatabase.openForReading(path: path)
      return try queue.read { db in
        if let peer, checkingPeer {
          // A name the history never saw is a mistake to say, not an empty table.
          let known = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM peers WHERE name = ?)", arguments: [peer])
          guard known == true else {
            let names = try String.fetchAll(
              db, sql: "SELECT name FROM peers ORDER BY name LIMIT 10")
            throw fail(
              "--peer \(peer): no such peer in \(path)"
                + (names.isEmpty
                  ? " (it holds none)" : "; peers include \(names.joined(separator: ", "))"))
          }
        }
        return try body(db)
      }
    } catch let error as HistoryError {
      throw fail(error.description)
    } catch let exit as ExitCode {
      throw exit
    } catch {
      throw fail("\(path): \(HistoryFault(error).message)")
    }
  }

  /// Says on stderr why a range held nothing, when the file has data elsewhere.
  static func explainEmpty(_ db: Database, from: Double, to: Double) throws {
    guard let newest = try HistoryQuery.newestTick(db),
      let oldest = try HistoryQuery.oldestTick(db)
    else {
      warn("the history holds no tick yet")
      return
    }
    if newest < from || oldest >= to {
      let text = { (seconds: Double) in
        HistoryOutput.render(
          [[("time", .number(seconds))]], format: .table, columns: ["time"]
        ).split(separator: "\n").last.map(String.init) ?? ""
      }
      warn(
        "nothing in this range: the history covers \(text(oldest)) to \(text(newest)) UTC (use --from/--to)"
      )
    }
  }
}
