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

  @Option(
    help: """
      The agent's address: http://HOST:PORT, or https://HOST:PORT for an agent with TLS \
      (--web.config.file); USER:PASSWORD@ before HOST for basic auth (a : or @ in the password \
      written %3A, %40). The port is 9470 when left out.
      """)
  var url = "http://127.0.0.1:9470"

  @Option(help: "Seconds between refreshes.")
  var refresh = 2.0

  @Option(help: "The basic auth user (instead of the URL's).")
  var username: String?

  @Option(
    help: """
      A file whose first line is the basic auth password (instead of the URL's; kept out of \
      the process list).
      """)
  var passwordFile: String?

  @Option(
    help:
      "The CA certificates (PEM) to verify the agent's certificate with (https; the system's by default)."
  )
  var caFile: String?

  @Option(help: "A client certificate (PEM), for an agent that asks for one (client_auth_type).")
  var certFile: String?

  @Option(help: "The client certificate's private key (PEM).")
  var keyFile: String?

  @Flag(help: "Do not verify the agent's certificate (https).")
  var insecureSkipVerify = false

  func run() throws {
    let endpoint: HTTPEndpoint
    do {
      endpoint = try HTTPEndpoint(
        url: url, username: username,
        password: try passwordFile.map { try HTTPEndpoint.password(fromFile: $0) },
        tls: .init(
          caFile: caFile, certFile: certFile, keyFile: keyFile,
          insecureSkipVerify: insecureSkipVerify))
    } catch let error as HTTPEndpoint.InvalidArgument {
      throw fail(error.description, code: 2)
    }
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
