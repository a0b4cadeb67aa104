import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityStore

/// `netquality history`: the per-tick rows of the SQLite history (what the dashboard showed,
/// tick by tick), for a peer or every peer, over a stretch of time.
struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "Per-tick quality from the agent's history: levels, MOS, loss, jitter, RTT.",
    discussion: """
      Reads the SQLite history the agent writes (or that `analyze --db` wrote), also while \
      the agent runs. Default range: the last hour. JSON fields are the timeline's \
      (`analyze --timeline --format jsonl`).
      """)

  @OptionGroup var options: HistoryOptions

  @Option(help: "At most this many rows, the newest.")
  var limit: Int?

  func run() throws {
    let format = try options.outputFormat()
    let (from, to) = try options.range(defaultSinceSeconds: 3600)
    let query = HistoryQuery(from: from, to: to, peer: options.peer, limit: limit)
    let rows = try options.read { db in
      let rows = try query.rows(db)
      if rows.isEmpty { try HistoryOptions.explainEmpty(db, from: from, to: to) }
      return rows
    }
    print(
      HistoryOutput.render(
        rows.map(HistoryOutput.record), format: format, columns: HistoryOutput.tickColumns),
      terminator: "")
  }
}
