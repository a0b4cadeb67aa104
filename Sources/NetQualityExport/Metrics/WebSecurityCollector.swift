/// What the web configuration (`--web.config.file`: TLS, basic auth, rate limit) did since the
/// agent started.
public struct WebSecurityCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .httpSecurityInfo, .httpAuthFailuresTotal, .httpAuthBcryptChecksTotal,
    .httpAuthBcryptShedTotal, .httpRateLimitedTotal, .httpTLSHandshakeFailuresTotal,
  ]

  public var tls: Bool
  /// exporter-toolkit's client_auth_type name (NoClientCert without TLS).
  public var clientAuth: String
  public var basicAuth: Bool
  /// 401s without credentials, and with a wrong user or password.
  public var missingCredentials: Int64
  public var invalidCredentials: Int64
  /// Credentials checked with bcrypt rather than answered from the cache.
  public var bcryptChecks: Int64
  public var rateLimited: Int64
  /// New credentials refused 429 because the bcrypt queue was full.
  public var bcryptShed: Int64
  public var tlsHandshakeFailures: Int64

  public init(
    tls: Bool, clientAuth: String, basicAuth: Bool, missingCredentials: Int64,
    invalidCredentials: Int64, bcryptChecks: Int64, rateLimited: Int64, bcryptShed: Int64 = 0,
    tlsHandshakeFailures: Int64
  ) {
    self.tls = tls
    self.clientAuth = clientAuth
    self.basicAuth = basicAuth
    self.missingCredentials = missingCredentials
    self.invalidCredentials = invalidCredentials
    self.bcryptChecks = bcryptChecks
    self.rateLimited = rateLimited
    self.bcryptShed = bcryptShed
    self.tlsHandshakeFailures = tlsHandshakeFailures
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.httpSecurityInfo)
    out.sample(
      .httpSecurityInfo,
      [
        ("tls", tls ? "on" : "off"), ("client_auth", clientAuth),
        ("basic_auth", basicAuth ? "on" : "off"),
      ], 1)
    out.family(.httpAuthFailuresTotal)
    out.sample(.httpAuthFailuresTotal, [("reason", "missing")], Double(missingCredentials))
    out.sample(.httpAuthFailuresTotal, [("reason", "invalid")], Double(invalidCredentials))
    out.family(.httpAuthBcryptChecksTotal)
    out.sample(.httpAuthBcryptChecksTotal, [], Double(bcryptChecks))
    out.family(.httpAuthBcryptShedTotal)
    out.sample(.httpAuthBcryptShedTotal, [], Double(bcryptShed))
    out.family(.httpRateLimitedTotal)
    out.sample(.httpRateLimitedTotal, [], Double(rateLimited))
    out.family(.httpTLSHandshakeFailuresTotal)
    out.sample(.httpTLSHandshakeFailuresTotal, [], Double(tlsHandshakeFailures))
  }
}

// MARK: The families

extension MetricFamily {
  public static let httpSecurityInfo = gauge(
    "netquality_http_security_info", labels: ["tls", "client_auth", "basic_auth"],
    "The web configuration in effect (--web.config.file): TLS, client certificates, basic "
      + "auth; always 1.")
  public static let httpAuthFailuresTotal = counter(
    "netquality_http_auth_failures_total", labels: ["reason"],
    "Requests refused 401 by basic auth: missing (no credentials) or invalid (a wrong user "
      + "or password).")
  public static let httpAuthBcryptChecksTotal = counter(
    "netquality_http_auth_bcrypt_checks_total",
    "Credentials checked with bcrypt (each new user and password once; then cached).")
  public static let httpAuthBcryptShedTotal = counter(
    "netquality_http_auth_bcrypt_shed_total",
    "New credentials refused 429 without a check because the bcrypt queue was full (a flood "
      + "of guesses); accepted credentials come from the cache and never wait for it.")
  public static let httpRateLimitedTotal = counter(
    "netquality_http_rate_limited_total",
    "Requests refused 429 by the web configuration's rate_limit.")
  public static let httpTLSHandshakeFailuresTotal = counter(
    "netquality_http_tls_handshake_failures_total",
    "Connections whose TLS handshake failed: plain HTTP to the TLS port, a missing or "
      + "unverified client certificate, no common version or cipher.")
}

extension WebSecurityCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    WebSecurityCollector(
      tls: true, clientAuth: "NoClientCert", basicAuth: true, missingCredentials: 1,
      invalidCredentials: 2, bcryptChecks: 3, rateLimited: 0, tlsHandshakeFailures: 4)
  }
}
