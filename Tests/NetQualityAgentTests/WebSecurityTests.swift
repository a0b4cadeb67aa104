import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import HummingbirdTesting
import NIOCore
import NetQualityConfig
import XCTest

@testable import NetQualityAgent

/// The web configuration on every route through Hummingbird's test client: basic auth with
/// bcrypt (cached, constant-time), the headers, the rate limit; and its files loaded and
/// checked as the agent, a reload and `check-config` do.
final class WebSecurityTests: XCTestCase {
  /// bcrypt of "secret" at cost 4 (the least: tests stay fast), spelled `$2y$` as htpasswd
  /// writes it.
  static let hash: String = {
    let made = Bcrypt.hash("secret", cost: 4)
    return "$2y$" + made.dropFirst(4)
  }()

  static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

  static func web(_ yaml: String) throws -> WebConfiguration {
    try WebConfigurationLoader.load(yaml: yaml, file: "/tmp/web.yml")
  }

  static func security(_ yaml: String) throws -> WebSecurity {
    WebSecurity(.init(configuration: try web(yaml), tlsMaterial: nil))
  }

  func test(
    _ security: WebSecurity, _ body: @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    let app = Application(
      router: HTTPServer.router(state: HTTPRoutesTests.tickedState(), security: security))
    try await app.test(.router, body)
  }

  static func basic(_ user: String, _ password: String) -> HTTPFields {
    [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
  }

  func testBasicAuthGuardsEveryPathAndCachesWhatBcryptSaid() async throws {
    let security = try Self.security(
      """
      basic_auth_users: {prometheus: '\(Self.hash)'}
      http_server_config: {headers: {X-Content-Type-Options: nosniff}}
      """)
    try await test(security) { client in
      for path in [
        "/metrics", "/", "/api/v1/peers", "/-/healthy", "/-/ready", "/nowhere",
        "/probe?target=127.0.0.1",
      ] {
        try await client.execute(uri: path, method: .get) { response in
          XCTAssertEqual(response.status, .unauthorized, path)
          XCTAssertEqual(
            response.headers[.wwwAuthenticate], #"Basic realm="netquality", charset="UTF-8""#)
          XCTAssertEqual(response.headers[Self.contentTypeOptions], "nosniff", path)
        }
      }
      try await client.execute(
        uri: "/metrics", method: .get, headers: Self.basic("prometheus", "wrong")
      ) { XCTAssertEqual($0.status, .unauthorized) }
      try await client.execute(
        uri: "/metrics", method: .get, headers: Self.basic("nobody", "secret")
      ) { XCTAssertEqual($0.status, .unauthorized) }
      for _ in 0..<3 {
        try await client.execute(
          uri: "/metrics", method: .get, headers: Self.basic("prometheus", "secret")
        ) { response in
          XCTAssertEqual(response.status, .ok)
          XCTAssertEqual(response.headers[Self.contentTypeOptions], "nosniff")
          XCTAssertTrue(String(buffer: response.body).contains("netquality_build_info"))
        }
      }
      // The headers go on errors behind the authentication too.
      try await client.execute(
        uri: "/nowhere", method: .get, headers: Self.basic("prometheus", "secret")
      ) { response in
        XCTAssertEqual(response.status, .notFound)
        XCTAssertEqual(response.headers[Self.contentTypeOptions], "nosniff")
      }
    }
    // Seven requests without credentials, two wrong; bcrypt ran once for each distinct triple
    // (wrong, unknown user, right): the right password's later requests hit the cache.
    XCTAssertEqual(security.counters.missing.load(ordering: .relaxed), 7)
    XCTAssertEqual(security.counters.invalid.load(ordering: .relaxed), 2)
    XCTAssertEqual(security.counters.bcryptChecks.load(ordering: .relaxed), 3)
    XCTAssertEqual(security.cache.count, 3)
  }

  func testMetricsShowTheSecurityAndItsRefusals() async throws {
    let security = try Self.security("basic_auth_users: {p: '\(Self.hash)'}\n")
    try await test(security) { client in
      try await client.execute(uri: "/metrics", method: .get) { _ in }
      try await client.execute(uri: "/metrics", method: .get, headers: Self.basic("p", "secret")) {
        let text = String(buffer: $0.body)
        XCTAssertTrue(
          text.contains(
            #"netquality_http_security_info{tls="off",client_auth="NoClientCert",basic_auth="on"} 1"#
          ))
        XCTAssertTrue(text.contains(#"netquality_http_auth_failures_total{reason="missing"} 1"#))
        XCTAssertTrue(text.contains("netquality_http_auth_bcrypt_checks_total 1"))
      }
    }
  }

  func testNoUsersNoAuthentication() async throws {
    try await test(try Self.security("")) { client in
      try await client.execute(uri: "/-/healthy", method: .get) { XCTAssertEqual($0.status, .ok) }
    }
  }

  /// Issue 39: `auth_failures{reason="missing"}` also counted the requests answered 429
  /// (24,052 against 484 real 401s). Each refusal is counted once, under what it was.
  func testARequestRefused429IsNotCountedAsMissingCredentials() async throws {
    let security = try Self.security(
      "basic_auth_users: {p: '\(Self.hash)'}\nrate_limit: {interval: 1h, burst: 2}\n")
    try await test(security) { client in
      for expected in [HTTPResponse.Status.unauthorized, .unauthorized, .tooManyRequests] {
        try await client.execute(uri: "/metrics", method: .get) {
          XCTAssertEqual($0.status, expected)
        }
      }
      try await client.execute(uri: "/metrics", method: .get, headers: Self.basic("p", "x")) {
        XCTAssertEqual($0.status, .tooManyRequests)
      }
    }
    XCTAssertEqual(security.counters.missing.load(ordering: .relaxed), 2)
    XCTAssertEqual(security.counters.invalid.load(ordering: .relaxed), 0)
    XCTAssertEqual(security.counters.rateLimited.load(ordering: .relaxed), 2)
  }

  func testRateLimitRefusesBeyondTheBurst() async throws {
    // One request an hour after a burst of 3: the fourth at once is refused.
    let security = try Self.security("rate_limit: {interval: 1h, burst: 3}\n")
    try await test(security) { client in
      for expected in [HTTPResponse.Status.ok, .ok, .ok, .tooManyRequests] {
        try await client.execute(uri: "/-/healthy", method: .get) {
          XCTAssertEqual($0.status, expected)
        }
      }
    }
    XCTAssertEqual(security.counters.rateLimited.load(ordering: .relaxed), 1)
  }

  func testCredentialsParsing() {
    let header = "Basic " + Data("user:pa:ss wörd".utf8).base64EncodedString()
    XCTAssertEqual(WebSecurity.basicCredentials(header)?.user, "user")
    XCTAssertEqual(WebSecurity.basicCredentials(header)?.password, "pa:ss wörd")
    XCTAssertNil(WebSecurity.basicCredentials("Bearer abc"))
    XCTAssertNil(WebSecurity.basicCredentials("Basic !!!"))
    XCTAssertNil(
      WebSecurity.basicCredentials("Basic " + Data("nocolon".utf8).base64EncodedString()))
    // A NUL would end the password early in bcrypt's C code: refused.
    XCTAssertNil(
      WebSecurity.basicCredentials("Basic " + Data("u:secret\0more".utf8).base64EncodedString()))
  }

  func testCacheIsBoundedAndComparesWholeDigests() {
    let cache = CredentialCache()
    for index in 0..<250 {
      cache.keep(CredentialCache.digest(user: "u", hash: "h", password: "\(index)"), accepted: true)
    }
    XCTAssertLessThanOrEqual(cache.count, CredentialCache.capacity)
    let newest = CredentialCache.digest(user: "u", hash: "h", password: "249")
    XCTAssertEqual(cache.answer(newest), true)
    XCTAssertNil(cache.answer(CredentialCache.digest(user: "u", hash: "h", password: "x")))
    // The parts are length-prefixed: moving a character between them is another key.
    XCTAssertFalse(
      CredentialCache.equal(
        CredentialCache.digest(user: "ab", hash: "c", password: "d"),
        CredentialCache.digest(user: "a", hash: "bc", password: "d")))
  }

  /// The cache is kept (issue 39): its digests hold the user's hash, so a user removed is
  /// refused all the same.
  func testReloadReplacesUsersAndTheCacheNoLongerMatchesARemovedOne() async throws {
    let security = try Self.security("basic_auth_users: {a: '\(Self.hash)'}\n")
    func verify(_ user: String) async -> WebSecurity.Verdict {
      await security.verify(
        authorization: Self.basic(user, "secret")[.authorization], users: security.current.users)
    }
    var verdict = await verify("a")
    XCTAssertEqual(verdict, .accepted)
    XCTAssertEqual(security.cache.count, 1)
    let renamed = try Self.web("basic_auth_users: {b: '\(Self.hash)'}\n")
    XCTAssertFalse(
      security.apply(
        .init(configuration: renamed, tlsMaterial: nil), startedWith: WebConfiguration()))
    XCTAssertEqual(security.cache.count, 1)
    verdict = await verify("a")
    XCTAssertEqual(verdict, .invalid)
    verdict = await verify("b")
    XCTAssertEqual(verdict, .accepted)
  }

  // MARK: - Files

  private var directory = URL(fileURLWithPath: "/nonexistent")

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "netquality-web-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, text) in [
      ("server.crt", TLSFixtures.certificate), ("server.key", TLSFixtures.key),
      ("other.key", TLSFixtures.otherKey), ("empty.crt", ""),
    ] {
      try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func write(_ yaml: String) throws -> String {
    let path = directory.appendingPathComponent("web.yml").path
    try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  private func loadIssues(_ yaml: String) throws -> [String] {
    let path = try write(yaml)
    do {
      _ = try WebSecurity.load(path: path)
      XCTFail("expected errors")
      return []
    } catch {
      return error.issues.map(\.description)
    }
  }

  func testCertificateAndKeyAreLoadedAndTheListenerConfigured() throws {
    let loaded = try WebSecurity.load(
      path: try write(
        """
        tls_server_config:
          cert_file: server.crt
          key_file: server.key
          client_auth_type: RequireAnyClientCert
          min_version: TLS13
        """))
    let security = WebSecurity(loaded)
    let tls = try XCTUnwrap(security.tls)
    XCTAssertEqual(tls.configuration.minimumTLSVersion, .tlsv13)
    XCTAssertEqual(tls.configuration.certificateVerification, .noHostnameVerification)
    // Any certificate passes (Go's RequireAnyClientCert): a callback that accepts them.
    XCTAssertNotNil(tls.customVerification)
    XCTAssertNotNil(tls.configuration.sslContextCallback)
    XCTAssertEqual(security.metricsCollector.clientAuth, "RequireAnyClientCert")
    XCTAssertNil(WebSecurity(.none).tls)
  }

  func testBadTLSFilesAreOneLineEachWithTheirKey() throws {
    XCTAssertEqual(
      try loadIssues("tls_server_config: {cert_file: missing.crt, key_file: server.key}\n"),
      [
        "line 1: tls_server_config.cert_file: cannot read \(directory.path)/missing.crt: no such file"
      ])
    XCTAssertEqual(
      try loadIssues("tls_server_config: {cert_file: empty.crt, key_file: server.key}\n"),
      ["line 1: tls_server_config.cert_file: \(directory.path)/empty.crt holds no PEM certificate"])
    XCTAssertEqual(
      try loadIssues("tls_server_config: {cert_file: server.crt, key_file: server.crt}\n"),
      [
        "line 1: tls_server_config.key_file: \(directory.path)/server.crt holds no PEM private key "
          + "(or an encrypted one)"
      ])
    let mismatch = try loadIssues(
      "tls_server_config: {cert_file: server.crt, key_file: other.key}\n")
    XCTAssertEqual(mismatch.count, 1)
    XCTAssertTrue(
      mismatch.first?.hasPrefix(
        "line 1: tls_server_config.key_file: the key does not go with the certificate") ?? false,
      "\(mismatch)")
    XCTAssertFalse(mismatch.first?.contains("\n") ?? true)
    // An unreadable web configuration file.
    do {
      _ = try WebSecurity.load(path: directory.appendingPathComponent("none.yml").path)
      XCTFail("expected an error")
    } catch {
      XCTAssertEqual(error.issues.map(\.description), ["cannot read: No such file or directory"])
    }
  }
}
