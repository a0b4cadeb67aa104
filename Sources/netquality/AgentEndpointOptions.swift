import ArgumentParser

/// How a command reaches a running agent's HTTP port (`top`, `calls --active`): its URL, basic
/// auth and TLS, as the agent's `--web.config.file` asks.
struct AgentEndpointOptions: ParsableArguments {
  @Option(
    help: """
      The agent's address: http://HOST:PORT, or https://HOST:PORT for an agent with TLS \
      (--web.config.file); USER:PASSWORD@ before HOST for basic auth (a : or @ in the password \
      written %3A, %40). The port is 9470 when left out.
      """)
  var url = "http://127.0.0.1:9470"

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

  /// The endpoint, or a one-line error (exit code 2).
  func endpoint() throws -> HTTPEndpoint {
    do {
      return try HTTPEndpoint(
        url: url, username: username,
        password: try passwordFile.map { try HTTPEndpoint.password(fromFile: $0) },
        tls: .init(
          caFile: caFile, certFile: certFile, keyFile: keyFile,
          insecureSkipVerify: insecureSkipVerify))
    } catch let error as HTTPEndpoint.InvalidArgument {
      throw fail(error.description, code: 2)
    }
  }
}
