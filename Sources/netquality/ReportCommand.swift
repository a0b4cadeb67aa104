import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityStore

/// `netquality report`: per peer over a stretch of time, the time at each level each way, MOS,
/// loss, the worst minutes, disconnects and alerts; worst peers first.
struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Per-peer report from the agent's history: time in each level, worst minutes.",
    discussion: """
      Default range: the last 24 hours. Peers are listed worst first (share of time at poor \
      or worse, the larger direction). JSON has the seconds at each level each way and the \
      three worst minutes of each peer.
      """)

  @OptionGroup var options: HistoryOptions

  func run() throws {
    let format = try options.outputFormat()
    let (from, to) = try options.range(defaultSinceSeconds: 86_400)
    let report = try options.read { db in
      let report = try HistoryReport.make(db, from: from, to: to, peer: options.peer)
      if report.peers.isEmpty { try HistoryOptions.explainEmpty(db, from: from, to: to) }
      return report
    }
    let peers = report.peers.sorted { lhs, rhs in
      (lhs.poorShare, rhs.peer) > (rhs.poorShare, lhs.peer)
    }
    print(
      HistoryOutput.render(
        peers.map(HistoryOutput.record), format: format, columns: HistoryOutput.reportColumns),
      terminator: "")
  }
}

extension HistoryReport.Peer {
  /// The larger share of time at poor or worse of the two directions.
  fileprivate var poorShare: Double {
    func share(_ seconds: [Double]) -> Double {
      let known = seconds.dropFirst().reduce(0, +)
      return known > 0 ? seconds[3...].reduce(0, +) / known : 0
    }
    return max(share(txLevelSeconds), share(rxLevelSeconds))
  }
}
