extension PrometheusExposition {
  /// What the web configuration (TLS, basic auth, rate limit) did since the agent started.
  public struct WebFigures: Sendable, Equatable {
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
    public var tlsHandshakeFailures: Int64

    public init(
      tls: Bool, clientAuth: String, basicAuth: Bool, missingCredentials: Int64,
      invalidCredentials: Int64, bcryptChecks: Int64, rateLimited: Int64,
      tlsHandshakeFailures: Int64
    ) {
      self.tls = tls
      self.clientAuth = clientAuth
      self.basicAuth = basicAuth
      self.missingCredentials = missingCredentials
      self.invalidCredentials = invalidCredentials
      self.bcryptChecks = bcryptChecks
      self.rateLimited = rateLimited
      self.tlsHandshakeFailures = tlsHandshakeFailures
    }
  }

  func webMetrics(into out: inout Writer) {
    guard let web else { return }
    out.family(
      "netquality_http_security_info", .gauge,
      "The web configuration in effect (--web.config.file): TLS, client certificates, basic "
        + "auth; always 1.")
    out.sample(
      "netquality_http_security_info",
      [
        ("tls", web.tls ? "on" : "off"), ("client_auth", web.clientAuth),
        ("basic_auth", web.basicAuth ? "on" : "off"),
      ], 1)
    out.family(
      "netquality_http_auth_failures_total", .counter,
      "Requests refused 401 by basic auth: missing (no credentials) or invalid (a wrong user "
        + "or password).")
    out.sample(
      "netquality_http_auth_failures_total", [("reason", "missing")],
      Double(web.missingCredentials))
    out.sample(
      "netquality_http_auth_failures_total", [("reason", "invalid")],
      Double(web.invalidCredentials))
    out.family(
      "netquality_http_auth_bcrypt_checks_total", .counter,
      "Credentials checked with bcrypt (each new user and password once; then cached).")
    out.sample("netquality_http_auth_bcrypt_checks_total", [], Double(web.bcryptChecks))
    out.family(
      "netquality_http_rate_limited_total", .counter,
      "Requests refused 429 by the web configuration's rate_limit.")
    out.sample("netquality_http_rate_limited_total", [], Double(web.rateLimited))
    out.family(
      "netquality_http_tls_handshake_failures_total", .counter,
      "Connections whose TLS handshake failed: plain HTTP to the TLS port, a missing or "
        + "unverified client certificate, no common version or cipher.")
    out.sample(
      "netquality_http_tls_handshake_failures_total", [], Double(web.tlsHandshakeFailures))
  }
}
