import ArgumentParser
import Foundation
import Glibc
import NetQualityAgent
import NetQualityCore
import NetQualityExport

struct TopCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "top",
    abstract: "A full-screen live view of a running agent's peers, refreshed every 2 s.",
    discussion: """
      Keys: l sort by level (worst first), o by loss, j by jitter, p by peer; / filter by peer \
      (a part of its name; Enter to apply, empty to clear); q quits. Colours follow the levels \
      unless NO_COLOR is set. The agent sorts and filters: top fetches only the rows that fit \
      on the screen, with the counts of every level and of the peers matched.
      """
  )

  @OptionGroup var agent: AgentEndpointOptions

  @Option(help: "Seconds between refreshes.")
  var refresh = 2.0

  func run() throws {
    let endpoint = try agent.endpoint()
    var view = TopView(color: ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    let terminal = try RawTerminal()
    defer { terminal.restore() }
    var nextFetch = 0.0
    var fetched = ""
    while true {
      let now = Date().timeIntervalSince1970
      let size = terminal.size()
      // A new sort, filter or screen height asks the agent at once.
      let path = view.requestPath(rows: size.rows)
      if now >= nextFetch || path != fetched {
        view.update(from: endpoint, path: path)
        fetched = path
        nextFetch = now + refresh
      }
      terminal.draw(view.render(size: size))
      guard
        let key = terminal.readKey(timeoutMilliseconds: Int32(max(50, (nextFetch - now) * 1000)))
      else {
        continue
      }
      if !view.handle(key) { return }
    }
  }
}
