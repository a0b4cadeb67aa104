import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityStore

/// `netquality alerts`: the alerts the agent raised, firing or ended, from its history.
struct AlertsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "alerts",
    abstract: "Alerts from the agent's history: when each fired and ended, and why.",
    discussion: "Default range: the last 24 hours (alerts active at any time in it).")

  @OptionGroup var options: HistoryOptions

  @Flag(help: "Only the alerts still firing.")
  var active = false

  func run() throws {
    let format = try options.outputFormat()
    let (from, to) = try options.range(defaultSinceSeconds: 86_400)
    let query = HistoryQuery(from: from, to: to, peer: options.peer)
    let alerts = try options.read { db in try query.alerts(db, activeOnly: active) }
    print(
      HistoryOutput.render(
        alerts.map(HistoryOutput.record), format: format, columns: HistoryOutput.alertColumns),
      terminator: "")
  }
}
