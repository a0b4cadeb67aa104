/// The web configuration file (`netquality run --web.config.file`, `web_config_file:`): the
/// keys of Prometheus exporters' `--web.config.file`
/// (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md), so
/// one file and one habit serve every exporter on a host. TLS, basic authentication, extra
/// response headers and a rate limit for everything the agent's HTTP server serves.
public struct WebConfiguration: Sendable, Equatable {
  /// The file it was read from (empty: none, plain HTTP without authentication).
  public var file = ""
  /// nil: plain HTTP.
  public var tls: TLSServerSettings?
  /// User name to bcrypt hash (`$2a$`, `$2b$` or `$2y$`); empty: no authentication.
  public var basicAuthUsers: [String: String] = [:]
  /// Headers added to every response, by the names exporter-toolkit allows.
  public var headers: [String: String] = [:]
  /// Accepted for exporter-toolkit's files; the agent serves HTTP/1.1 only.
  public var http2 = true
  public var rateLimit: RateLimit?
  /// The line of each key (dotted path) in the file, for checks made after loading.
  public var keyLines: [String: Int] = [:]

  public init() {}

  /// exporter-toolkit's `rate_limit`: one request every `intervalSeconds`, `burst` at once;
  /// beyond, `429 Too Many Requests`. The whole server's, not per client.
  public struct RateLimit: Sendable, Equatable {
    public var intervalSeconds: Double
    public var burst: Int

    public init(intervalSeconds: Double, burst: Int) {
      self.intervalSeconds = intervalSeconds
      self.burst = burst
    }
  }

  /// The headers exporter-toolkit lets a file set, with the values it accepts (nil: any);
  /// `web/handler.go`'s `extraHTTPHeaders`, so a file valid there is valid here.
  public static let allowedHeaders: [(name: String, values: [String]?)] = [
    ("Strict-Transport-Security", nil),
    ("X-Content-Type-Options", ["nosniff"]),
    ("X-Frame-Options", ["deny", "sameorigin"]),
    ("X-XSS-Protection", nil),
    ("Content-Security-Policy", nil),
  ]

  /// Whether a reload can apply `new` over `self` without restarting the listener: users,
  /// headers, the rate limit and the certificate and key (read again for new connections)
  /// apply at once; whether TLS is on, the client certificate policy, the client CA, versions,
  /// cipher suites and curves are fixed when the listener starts.
  public func listenerSettingsDiffer(from new: WebConfiguration) -> Bool {
    (tls?.listenerPart) != (new.tls?.listenerPart)
  }
}
