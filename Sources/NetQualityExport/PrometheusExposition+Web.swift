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
  }

  func webMetrics(into out: inout Writer) {
    guard let web else { return }
    out.family(.httpSecurityInfo)
    out.sample(
      .httpSecurityInfo,
      [
        ("tls", web.tls ? "on" : "off"), ("client_auth", web.clientAuth),
        ("basic_auth", web.basicAuth ? "on" : "off"),
      ], 1)
    out.family(.httpAuthFailuresTotal)
    out.sample(.httpAuthFailuresTotal, [("reason", "missing")], Double(web.missingCredentials))
    out.sample(.httpAuthFailuresTotal, [("reason", "invalid")], Double(web.invalidCredentials))
    out.family(.httpAuthBcryptChecksTotal)
    out.sample(.httpAuthBcryptChecksTotal, [], Double(web.bcryptChecks))
    out.family(.httpAuthBcryptShedTotal)
    out.sample(.httpAuthBcryptShedTotal, [], Double(web.bcryptShed))
    out.family(.httpRateLimitedTotal)
    out.sample(.httpRateLimitedTotal, [], Double(web.rateLimited))
    out.family(.httpTLSHandshakeFailuresTotal)
    out.sample(.httpTLSHandshakeFailuresTotal, [], Double(web.tlsHandshakeFailures))
  }
}
