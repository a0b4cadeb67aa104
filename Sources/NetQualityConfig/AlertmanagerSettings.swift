/// The `alertmanager:` section: where the agent pushes its alerts (the Alertmanager v2 API,
/// `POST /api/v2/alerts`) and how, modelled on what Prometheus does as a client of
/// Alertmanager (its `alerting:` configuration and notifier).
public struct AlertmanagerSettings: Sendable, Equatable {
  /// Every Alertmanager of a cluster; each batch goes to all of them, as Prometheus sends to
  /// every Alertmanager it knows. Empty: no push.
  public var urls: [AlertmanagerURL] = []
  /// One request, connect to answer. 10 s: Prometheus' default `alerting.alertmanagers[].timeout`
  /// (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#alertmanager_config).
  public var timeoutSeconds = 10.0
  /// Firing alerts are sent again this often, with an end 4 intervals ahead, so Alertmanager
  /// never resolves them on its own while the agent lives. 60 s: Prometheus'
  /// `--rules.alert.resend-delay` default.
  public var resendIntervalSeconds = 60.0
  /// Alerts waiting to be sent; beyond it the oldest go, counted. 10,000: Prometheus'
  /// `--alertmanager.notification-queue-capacity` default.
  public var queueCapacity = 10_000
  /// Labels added to every alert (like Prometheus' `external_labels`); `instance` and `job`
  /// replace the defaults (the listen address, or this host's name and the listen port on a
  /// wildcard address; `netquality`). An alert's own labels (`alertname`, `severity`, `peer`,
  /// `direction`) win over these.
  public var labels: [String: String] = [:]
  /// `basic_auth`, `authorization` and `tls_config`, as Prometheus has them.
  public var http = AlertmanagerHTTPSettings()

  public init() {}

  /// Whether the agent pushes alerts at all.
  public var enabled: Bool { !urls.isEmpty }

  /// The labels each alert sets itself, which `labels` may not name.
  public static let alertLabelNames: Set<String> = ["alertname", "severity", "peer", "direction"]

  public static let timeoutRangeSeconds: ClosedRange<Double> = 0.1...300
  public static let resendIntervalRangeSeconds: ClosedRange<Double> = 1...86_400
  public static let queueCapacityRange = 1...1_000_000

  /// Label names Alertmanager accepts: the Prometheus data model's `[a-zA-Z_][a-zA-Z0-9_]*`
  /// (https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels), `__` reserved.
  public static func isValidLabelName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, !name.hasPrefix("__") else { return false }
    func letter(_ scalar: Unicode.Scalar) -> Bool {
      ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
    }
    return letter(first)
      && name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
  }
}

/// An Alertmanager's base URL: `http[s]://HOST[:PORT][/PREFIX]`, the alerts posted to
/// `PREFIX/api/v2/alerts`. The host may be a name (resolved at each connection, so a moved
/// Alertmanager is found again) or an IP address (`[...]` for IPv6).
public struct AlertmanagerURL: Sendable, Equatable, CustomStringConvertible {
  /// https: TLS, the certificate checked as `alertmanager.tls_config` says.
  public var isHTTPS: Bool
  public var host: String
  public var port: Int
  /// The route prefix (Alertmanager's `--web.route-prefix`), without a trailing slash.
  public var pathPrefix: String

  /// What a URL must look like, for error messages.
  public static let expected =
    "expected http[s]://HOST[:PORT][/PREFIX], e.g. http://127.0.0.1:9093 or "
    + "https://alertmanager.example:9093 (a user and password go in basic_auth, not the URL)"

  public init?(_ text: String) {
    let scheme: String
    if text.hasPrefix("http://") {
      scheme = "http://"
    } else if text.hasPrefix("https://") {
      scheme = "https://"
    } else {
      return nil
    }
    let rest = text.dropFirst(scheme.count)
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    let authority = rest[..<slash]
    var prefix = String(rest[slash...])
    while prefix.hasSuffix("/") { prefix.removeLast() }
    guard !authority.isEmpty, !authority.contains("@"), !prefix.contains("?"),
      !prefix.contains("#"), !prefix.contains(" ")
    else { return nil }
    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return nil }
        portText = after.dropFirst()
      }
      guard host.contains(":") else { return nil }
    } else {
      let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count <= 2 else { return nil }
      host = parts[0]
      portText = parts.count == 2 ? parts[1] : nil
      let allowed = host.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || $0 == "." || $0 == "-"
      }
      guard allowed else { return nil }
    }
    guard !host.isEmpty else { return nil }
    // 80 and 443: the http and https schemes' default ports (RFC 9110 sections 4.2.1, 4.2.2).
    isHTTPS = scheme == "https://"
    var port = isHTTPS ? 443 : 80
    if let portText {
      guard let value = Int(portText), (1...65_535).contains(value) else { return nil }
      port = value
    }
    self.host = String(host)
    self.port = port
    pathPrefix = prefix
  }

  /// The path alerts are posted to.
  public var alertsPath: String { pathPrefix + "/api/v2/alerts" }

  /// `host:port` as a Host header and a URL write it.
  public var authority: String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// The URL as logged and shown: it never holds a secret (a user and password are refused).
  public var description: String { "\(isHTTPS ? "https" : "http")://\(authority)\(pathPrefix)" }
}
