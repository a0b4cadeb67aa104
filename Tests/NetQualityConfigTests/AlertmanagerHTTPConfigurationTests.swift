import Foundation
import NetQualityConfig
import XCTest

/// `alertmanager.basic_auth`, `.authorization` and `.tls_config`: Prometheus' keys, their
/// files read at load, every mistake at its line, and no secret in a message or description.
final class AlertmanagerHTTPConfigurationTests: XCTestCase, ConfigurationFixtures {
  private var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "netquality-am-http-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func file(_ name: String, _ text: String) throws -> String {
    let path = "\(directory)/\(name)"
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  func testHTTPSURLsDefaultToPort443() throws {
    let url = try XCTUnwrap(AlertmanagerURL("https://am.example/prefix/"))
    XCTAssertTrue(url.isHTTPS)
    XCTAssertEqual(url.port, 443)
    XCTAssertEqual(url.description, "https://am.example:443/prefix")
    XCTAssertEqual(try XCTUnwrap(AlertmanagerURL("http://am.example")).port, 80)
    XCTAssertFalse(try XCTUnwrap(AlertmanagerURL("http://am.example")).isHTTPS)
  }

  func testBasicAuthWithAPasswordFileAndTLS() throws {
    let password = try file("password", "s3cret-pw\n")
    let ca = try file("ca.pem", "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n")
    let settings = try load(
      """
      alertmanager:
        url: "https://am.example:9093"
        basic_auth: {username: netquality, password_file: "\(password)"}
        tls_config:
          ca_file: "\(ca)"
          server_name: alertmanager.internal
      """
    ).alertmanager
    XCTAssertEqual(settings.http.basicAuth?.username, "netquality")
    XCTAssertEqual(settings.http.basicAuth?.password.value, "s3cret-pw")
    XCTAssertEqual(settings.http.basicAuth?.password.source, .file(password))
    XCTAssertEqual(settings.http.tls.caFile, ca)
    XCTAssertEqual(settings.http.tls.serverName, "alertmanager.internal")
    XCTAssertFalse(settings.http.tls.insecureSkipVerify)
    XCTAssertNil(settings.http.authorization)
    // Printing the settings (a log line, a debug dump) shows where the secret is, not it.
    XCTAssertFalse("\(settings)".contains("s3cret-pw"))
    XCTAssertTrue("\(settings)".contains("<secret from \(password)>"))
  }

  func testAuthorizationIsBearerByDefault() throws {
    let token = try file("token", "tok-123")
    let bearer = try load(
      "alertmanager: {url: \"https://am.example\", authorization: {credentials_file: \"\(token)\"}}\n"
    ).alertmanager.http.authorization
    XCTAssertEqual(bearer?.type, "Bearer")
    XCTAssertEqual(bearer?.credentials.value, "tok-123")
    let custom = try load(
      "alertmanager: {url: \"https://am.example\", authorization: {type: Token, credentials: abc}}\n"
    ).alertmanager.http.authorization
    XCTAssertEqual(custom?.type, "Token")
    XCTAssertEqual(custom?.credentials.source, .inline)
  }

  func testMistakesAreReportedWithTheirLinesAndNoSecret() throws {
    let missing = "\(directory)/missing"
    let twoLines = try file("two-lines", "a\nb\n")
    let notPEM = try file("not-pem", "hello\n")
    XCTAssertEqual(
      issues(
        """
        alertmanager:
          url: "https://am.example"
          basic_auth:
            username: "net:quality"
            password: hunter2
          authorization:
            type: basic
            credentials: hunter3
          tls_config:
            ca_file: "\(missing)"
            cert_file: "\(notPEM)"
            server_name: ""
            insecure_skip_verify: maybe
        """),
      [
        "4 alertmanager.basic_auth.username: a user name is not empty and has no colon",
        "6 alertmanager.authorization: give basic_auth or authorization, not both",
        "7 alertmanager.authorization.type: Basic is not an authorization type here: use basic_auth",
        "10 alertmanager.tls_config.ca_file: cannot read \(missing): No such file or directory",
        "11 alertmanager.tls_config.cert_file: \(notPEM): no PEM CERTIFICATE in it",
        "11 alertmanager.tls_config.cert_file: cert_file and key_file go together (a client "
          + "certificate and its key)",
        "12 alertmanager.tls_config.server_name: an empty name: remove the key for the URL's host",
        "13 alertmanager.tls_config.insecure_skip_verify: expected true or false",
      ])
    XCTAssertEqual(
      issues(
        """
        alertmanager:
          url: "https://am.example"
          basic_auth:
            username: netquality
            password: hunter2
            password_file: "\(twoLines)"
        """),
      ["6 alertmanager.basic_auth.password_file: give password or password_file, not both"])
    XCTAssertEqual(
      issues(
        """
        alertmanager:
          url: "https://am.example"
          authorization:
            credentials_file: "\(twoLines)"
        """),
      [
        "4 alertmanager.authorization.credentials_file: \(twoLines): expected one line (the "
          + "secret), found several"
      ])
    XCTAssertEqual(
      issues("alertmanager: {url: \"https://am.example\", basic_auth: {username: x}}\n"),
      ["1 alertmanager.basic_auth: needs password or password_file"])
  }

  /// The same file is the same setting (a reload re-reads it without a restart); an inline
  /// secret changed is a change.
  func testSecretsCompareByWhereTheyAreWritten() {
    XCTAssertEqual(
      AlertmanagerSecret("old", from: .file("/p")), AlertmanagerSecret("new", from: .file("/p")))
    XCTAssertNotEqual(
      AlertmanagerSecret("old", from: .inline), AlertmanagerSecret("new", from: .inline))
    XCTAssertNotEqual(
      AlertmanagerSecret("same", from: .inline), AlertmanagerSecret("same", from: .file("/p")))
    var running = AlertmanagerHTTPSettings()
    running.basicAuth = .init(username: "u", password: .init("old", from: .file("/p")))
    var reread = running
    reread.basicAuth?.password.value = "new"
    running.takeSecrets(from: reread)
    XCTAssertEqual(running.basicAuth?.password.value, "new")
    // A secret moved inline is a change waiting for the restart: not taken.
    reread.basicAuth?.password = .init("inline", from: .inline)
    running.takeSecrets(from: reread)
    XCTAssertEqual(running.basicAuth?.password.value, "new")
  }
}
