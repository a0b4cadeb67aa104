import NetQualityConfig
import XCTest

/// The web configuration file in exporter-toolkit's format: what a valid file gives, and every
/// mistake reported with its key and line.
final class WebConfigurationLoaderTests: XCTestCase {
  /// A bcrypt hash of "secret" made by `htpasswd -nbBC 10 "" secret` (its `$2y$` spelling).
  static let hash = "$2y$10$gU1nFmDl/UBK2VJqTw.CJ.JdmLW5RU.UrMmGzqnsHbKIWoJrLNOYK"

  private func load(_ yaml: String) throws -> WebConfiguration {
    try WebConfigurationLoader.load(yaml: yaml, file: "/etc/netquality/web.yml")
  }

  private func issues(_ yaml: String) -> [String] {
    do {
      _ = try WebConfigurationLoader.load(yaml: yaml, file: "/etc/netquality/web.yml")
      XCTFail("expected errors")
      return []
    } catch {
      return error.issues.map(\.description)
    }
  }

  func testEmptyFileIsPlainHTTPWithoutAuthentication() throws {
    let web = try load("")
    XCTAssertNil(web.tls)
    XCTAssertEqual(web.basicAuthUsers, [:])
    XCTAssertNil(web.rateLimit)
    XCTAssertNil(try load("tls_server_config: {}\n").tls)
  }

  func testExporterToolkitFileIsRead() throws {
    let web = try load(
      """
      tls_server_config:
        cert_file: server.crt
        key_file: /secret/server.key
        client_auth_type: RequireAndVerifyClientCert
        client_ca_file: ca.crt
        min_version: TLS13
        cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
        curve_preferences: [X25519, CurveP256]
        prefer_server_cipher_suites: false
      http_server_config:
        http2: false
        headers:
          X-Frame-Options: deny
          Strict-Transport-Security: max-age=31536000
          X-XSS-Protection: ""
      basic_auth_users:
        prometheus: '\(Self.hash)'
      rate_limit: {interval: 100ms, burst: 20}
      """)
    let tls = try XCTUnwrap(web.tls)
    // Relative to the file's directory, as exporter-toolkit's SetDirectory.
    XCTAssertEqual(tls.certificate, .file("/etc/netquality/server.crt"))
    XCTAssertEqual(tls.key, .file("/secret/server.key"))
    XCTAssertEqual(tls.clientCA, .file("/etc/netquality/ca.crt"))
    XCTAssertEqual(tls.clientAuth, .requireAndVerifyClientCert)
    XCTAssertEqual(tls.minVersion, .tls13)
    XCTAssertEqual(tls.maxVersion, .tls13)
    XCTAssertEqual(tls.cipherSuites, ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"])
    XCTAssertEqual(tls.curvePreferences, ["X25519", "CurveP256"])
    XCTAssertFalse(tls.preferServerCipherSuites)
    XCTAssertFalse(web.http2)
    // A blank value unsets the header.
    XCTAssertEqual(
      web.headers, ["X-Frame-Options": "deny", "Strict-Transport-Security": "max-age=31536000"])
    XCTAssertEqual(web.basicAuthUsers, ["prometheus": Self.hash])
    XCTAssertEqual(web.rateLimit, WebConfiguration.RateLimit(intervalSeconds: 0.1, burst: 20))
    XCTAssertEqual(web.keyLines["basic_auth_users.prometheus"], 17)
  }

  func testInlinePEMAndOldClientAuthName() throws {
    let tls = try XCTUnwrap(
      try load(
        """
        tls_server_config:
          cert: "-----BEGIN CERTIFICATE-----"
          key: "-----BEGIN PRIVATE KEY-----"
          client_auth_type: RequireClientCert
        """
      ).tls)
    XCTAssertEqual(tls.certificate, .inline("-----BEGIN CERTIFICATE-----"))
    XCTAssertEqual(tls.clientAuth, .requireAnyClientCert)
  }

  func testEveryMistakeIsReportedWithItsKeyAndLine() {
    let found = issues(
      """
      tls_server_config:
        cert_file: a.crt
        key_file: a.key
        client_auth_type: VerifyClientCertIfGiven
        client_allowed_sans: [scraper]
        min_version: TLS13
        max_version: TLS12
        cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]
      http_server_config:
        headers:
          X-Frame-Options: allow
          Server: netquality
      basic_auth_users:
        alice: plain-text-password
        "bob:smith": '\(Self.hash)'
        carol: '$2x$10$gU1nFmDl/UBK2VJqTw.CJ.JdmLW5RU.UrMmGzqnsHbKIWoJrLNOYK'
      rate_limit: {interval: soon, burst: 1}
      colour: blue
      """)
    let expected = [
      "line 4: tls_server_config.client_auth_type: VerifyClientCertIfGiven needs client_ca_file",
      "line 5: tls_server_config.client_allowed_sans: not supported by netquality",
      "line 6: tls_server_config.min_version: TLS13 is above max_version TLS12",
      "line 8: tls_server_config.cipher_suites[0]: unknown 'TLS_RSA_WITH_RC4_128_SHA'",
      "line 11: http_server_config.headers.X-Frame-Options: 'allow' is not allowed; use deny or sameorigin",
      "line 12: http_server_config.headers.Server: this header cannot be set",
      "line 14: basic_auth_users.alice: not a bcrypt hash",
      "line 15: basic_auth_users.bob:smith: a user name cannot contain ':'",
      "line 16: basic_auth_users.carol: bcrypt version $2x$ is not supported",
      "line 17: rate_limit.interval: 'soon' is not a duration",
      "line 18: colour: unknown key",
    ]
    XCTAssertEqual(found.count, expected.count, "\(found)")
    for (issue, prefix) in zip(found, expected) {
      XCTAssertTrue(issue.hasPrefix(prefix), "\(issue) does not start with \(prefix)")
    }
  }

  func testTLSNeedsACertificateAndAKeyAndAClientCANeedsAPolicy() {
    XCTAssertEqual(
      issues("tls_server_config: {key_file: a.key}\n"),
      ["line 1: tls_server_config.cert_file: TLS needs cert_file (or cert)"])
    XCTAssertEqual(
      issues("tls_server_config: {cert_file: a.crt, cert: x, key_file: a.key}\n"),
      ["line 1: tls_server_config.cert: give cert or cert_file, not both"])
    XCTAssertEqual(
      issues("tls_server_config: {cert_file: a.crt, key_file: a.key, client_ca_file: ca.crt}\n"),
      [
        "line 1: tls_server_config.client_ca_file: a client CA without a client_auth_type "
          + "(RequireAndVerifyClientCert authenticates clients)"
      ])
    XCTAssertEqual(
      issues("tls_server_config: {cert_file: a.crt, key_file: a.key, client_auth_type: Always}\n")
        .first?.hasPrefix(
          "line 1: tls_server_config.client_auth_type: unknown 'Always'; use NoClientCert"),
      true)
  }

  func testBcryptHashes() {
    XCTAssertNil(BcryptHash.problem(Self.hash))
    XCTAssertNil(BcryptHash.problem("$2a$04$" + String(repeating: "a", count: 53)))
    XCTAssertNotNil(BcryptHash.problem("$2b$03$" + String(repeating: "a", count: 53)))
    XCTAssertNotNil(BcryptHash.problem("$2b$10$" + String(repeating: "a", count: 52)))
    XCTAssertNotNil(BcryptHash.problem("$2b$10$" + String(repeating: "a", count: 52) + "!"))
    XCTAssertNotNil(BcryptHash.problem("{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="))
    XCTAssertEqual(BcryptHash.normalized(Self.hash).prefix(4), "$2b$")
    XCTAssertEqual(BcryptHash.normalized(Self.hash).dropFirst(4), Self.hash.dropFirst(4))
  }

  func testGoDurations() {
    XCTAssertEqual(GoDuration.seconds("0"), 0)
    XCTAssertEqual(GoDuration.seconds("1s"), 1)
    XCTAssertEqual(GoDuration.seconds("100ms"), 0.1)
    XCTAssertEqual(GoDuration.seconds("1m30s"), 90)
    XCTAssertEqual(GoDuration.seconds("1.5h"), 5400)
    XCTAssertEqual(try XCTUnwrap(GoDuration.seconds("250us")), 0.000_25, accuracy: 1e-12)
    for bad in ["", "1", "s", "-1s", "1d", "1s2"] {
      XCTAssertNil(GoDuration.seconds(bad), bad)
    }
  }

  func testRateLimitOfZeroIsOff() throws {
    XCTAssertNil(try load("rate_limit: {interval: 0, burst: 5}\n").rateLimit)
    XCTAssertEqual(
      issues("rate_limit: {interval: 1s, burst: 0}\n"),
      [
        "line 1: rate_limit.burst: with an interval, burst must be 1 or more (no request would "
          + "pass)"
      ])
  }

  func testAgentConfigurationNamesTheFileAndTheStatusPage() throws {
    let configuration = try ConfigurationLoader.load(
      yaml: """
        web_config_file: /etc/netquality/web.yml
        status_page: {max_peers: 5, chart_seconds: 600}
        """, file: "test.yaml")
    XCTAssertEqual(configuration.webConfigFile, "/etc/netquality/web.yml")
    XCTAssertEqual(configuration.statusPage.maxPeers, 5)
    XCTAssertEqual(configuration.statusPage.chartSeconds, 600)
    XCTAssertEqual(
      ConfigurationKeys.changed(from: AgentConfiguration(), to: configuration).map(\.name),
      ["web_config_file", "status_page.max_peers", "status_page.chart_seconds"])
    var overrides = ConfigurationOverrides()
    overrides.webConfigFile = "/tmp/other.yml"
    XCTAssertEqual(overrides.applied(to: configuration).webConfigFile, "/tmp/other.yml")
    XCTAssertThrowsError(
      try ConfigurationLoader.load(yaml: "status_page: {chart_seconds: 5}\n", file: "test.yaml"))
  }

  func testListenerPartsOfAReload() throws {
    let base = try load("tls_server_config: {cert_file: a.crt, key_file: a.key}\n")
    // New files for the certificate and key, and new users: applied live.
    let renewed = try load(
      "tls_server_config: {cert_file: b.crt, key_file: b.key}\nbasic_auth_users: {a: '\(Self.hash)'}\n"
    )
    XCTAssertFalse(base.listenerSettingsDiffer(from: renewed))
    let stricter = try load(
      "tls_server_config: {cert_file: a.crt, key_file: a.key, min_version: TLS13}\n")
    XCTAssertTrue(base.listenerSettingsDiffer(from: stricter))
    XCTAssertTrue(base.listenerSettingsDiffer(from: try load("")))
  }
}
