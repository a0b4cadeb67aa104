import Foundation
import NIOCore
import NetQualityConfig
import XCTest

@testable import NetQualityAgent

/// The notifier over https against an in-process NIOSSL server whose certificates a test CA
/// (`TestCertificateAuthority`, made with openssl at each run) signed: the chain and the host
/// name verified, basic auth and bearer tokens sent, a client certificate presented, and each
/// TLS failure one log line with its reason, counted, and no secret in it.
final class AlertmanagerTLSTests: XCTestCase {
  typealias Schedule = AlertmanagerScheduleTests
  typealias Lines = AlertmanagerNotifierTests.Lines

  private var directory = ""
  private var authority: TestCertificateAuthority!
  private var server: (certificate: String, key: String) = ("", "")

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "netquality-am-tls-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    authority = try TestCertificateAuthority(directory: directory, name: "test-ca")
    server = try authority.issue("server", names: ["localhost", "127.0.0.1"])
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func notifier(
    url: String, tls: AlertmanagerTLSSettings, http: AlertmanagerHTTPSettings = .init(),
    lines: Lines
  ) throws -> AlertmanagerNotifier {
    var settings = AlertmanagerNotifier.Settings(
      urls: [try XCTUnwrap(AlertmanagerURL(url))], timeoutSeconds: 5,
      resendIntervalSeconds: 60, queueCapacity: 100, context: Schedule.context,
      tlsContext: try AlertmanagerTLSContext.make(tls), serverName: tls.serverName,
      authorization: http.authorizationHeader)
    settings.backoffInitialSeconds = 0.05
    return AlertmanagerNotifier(settings: settings, log: lines.log)
  }

  /// Publishes one alert and stops: the final flush makes a last attempt, so when `stop`
  /// returns every attempt has been made and logged (no waiting on a clock).
  private func deliver(_ notifier: AlertmanagerNotifier) -> Bool {
    notifier.start()
    notifier.publish(firing: [Schedule.alert("10.202.0.1")], events: [], at: Schedule.at(0))
    return notifier.stop(deadline: Date().addingTimeInterval(10))
  }

  func testAuthorizationHeaders() {
    var http = AlertmanagerHTTPSettings()
    XCTAssertNil(http.authorizationHeader)
    http.basicAuth = .init(username: "netquality", password: .init("s3cret", from: .inline))
    // base64("netquality:s3cret"), as `printf netquality:s3cret | base64` gives it.
    XCTAssertEqual(http.authorizationHeader, "Basic bmV0cXVhbGl0eTpzM2NyZXQ=")
    http.basicAuth = nil
    http.authorization = .init(credentials: .init("tok-1", from: .file("/run/token")))
    XCTAssertEqual(http.authorizationHeader, "Bearer tok-1")
    http.authorization = .init(type: "Token", credentials: .init("tok-2", from: .inline))
    XCTAssertEqual(http.authorizationHeader, "Token tok-2")
  }

  func testHTTPSWithTheCAFileAndBasicAuthDelivers() throws {
    let alertmanager = try TLSTestServer(certificate: server.certificate, key: server.key)
    defer { try? alertmanager.close() }
    var tls = AlertmanagerTLSSettings()
    tls.caFile = authority.certificateFile
    var http = AlertmanagerHTTPSettings()
    http.basicAuth = .init(username: "netquality", password: .init("s3cret", from: .inline))
    let lines = Lines()
    // By name: SNI and the name check on "localhost", resolved at the connection.
    let notifier = try notifier(
      url: "https://localhost:\(alertmanager.port)", tls: tls, http: http, lines: lines)
    XCTAssertTrue(deliver(notifier))
    XCTAssertEqual(alertmanager.authorizations.first, "Basic bmV0cXVhbGl0eTpzM2NyZXQ=")
    XCTAssertEqual(notifier.counters.targets.first?.sent, 1)
    XCTAssertEqual(notifier.counters.targets.first?.failed, 0)
    XCTAssertTrue(lines.all.isEmpty, "\(lines.all)")
  }

  func testAnIPAddressIsCheckedAgainstTheCertificatesAddresses() throws {
    let alertmanager = try TLSTestServer(certificate: server.certificate, key: server.key)
    defer { try? alertmanager.close() }
    var tls = AlertmanagerTLSSettings()
    tls.caFile = authority.certificateFile
    let lines = Lines()
    let notifier = try notifier(
      url: "https://127.0.0.1:\(alertmanager.port)", tls: tls, lines: lines)
    XCTAssertTrue(deliver(notifier))
    XCTAssertEqual(alertmanager.authorizations, [nil], "no credentials configured: no header")
  }

  func testAReloadsFreshSecretIsSentFromTheNextRequest() throws {
    let alertmanager = try TLSTestServer(certificate: server.certificate, key: server.key)
    defer { try? alertmanager.close() }
    var tls = AlertmanagerTLSSettings()
    tls.caFile = authority.certificateFile
    var http = AlertmanagerHTTPSettings()
    http.authorization = .init(credentials: .init("old-token", from: .file("/t")))
    let notifier = try notifier(
      url: "https://localhost:\(alertmanager.port)", tls: tls, http: http, lines: Lines())
    http.authorization?.credentials.value = "new-token"
    notifier.reauthorize(http)
    XCTAssertTrue(deliver(notifier))
    XCTAssertEqual(alertmanager.authorizations, ["Bearer new-token"])
  }

  func testAnotherCAsCertificateIsRefusedLoggedAndCounted() throws {
    let alertmanager = try TLSTestServer(certificate: server.certificate, key: server.key)
    defer { try? alertmanager.close() }
    let other = try TestCertificateAuthority(directory: directory, name: "other-ca")
    var tls = AlertmanagerTLSSettings()
    tls.caFile = other.certificateFile
    var http = AlertmanagerHTTPSettings()
    http.basicAuth = .init(username: "netquality", password: .init("s3cret", from: .inline))
    let lines = Lines()
    let url = "https://localhost:\(alertmanager.port)"
    let notifier = try notifier(url: url, tls: tls, http: http, lines: lines)
    XCTAssertFalse(deliver(notifier), "nothing delivered")
    XCTAssertEqual(alertmanager.authorizations, [], "no request got through")
    XCTAssertEqual(lines.all.count, 1, "\(lines.all)")
    let line = try XCTUnwrap(lines.all.first?.1)
    XCTAssertTrue(
      line.hasPrefix(
        "alertmanager \(url): cannot deliver alerts: certificate verify failed: its chain does "
          + "not lead to a CA of tls_config.ca_file (the system's roots without one), or a "
          + "certificate in it has expired; retrying"),
      line)
    XCTAssertFalse(line.contains("s3cret"), line)
    XCTAssertFalse(line.contains("bmV0cXVhbGl0eTpzM2NyZXQ"), line)
    XCTAssertGreaterThanOrEqual(notifier.counters.targets.first?.failed ?? 0, 1)
    XCTAssertEqual(notifier.counters.targets.first?.sent, 0)
    XCTAssertEqual(notifier.counters.targets.first?.up, false)
  }

  /// A certificate for localhost alone: NIOSSL also accepts a certificate holding the address
  /// connected to, whatever the name, so this one holds none.
  func testACertificateForAnotherNameIsRefused() throws {
    let named = try authority.issue("named", names: ["localhost"])
    let alertmanager = try TLSTestServer(certificate: named.certificate, key: named.key)
    defer { try? alertmanager.close() }
    var tls = AlertmanagerTLSSettings()
    tls.caFile = authority.certificateFile
    tls.serverName = "alertmanager.example"
    let lines = Lines()
    let notifier = try notifier(
      url: "https://localhost:\(alertmanager.port)", tls: tls, lines: lines)
    XCTAssertFalse(deliver(notifier))
    let line = try XCTUnwrap(lines.all.first?.1)
    XCTAssertTrue(
      line.contains(
        "cannot deliver alerts: certificate verify failed: Couldn't find alertmanager.example in "
          + "certificate from peer (nor the address connected to); retrying"),
      line)
    XCTAssertEqual(alertmanager.authorizations, [])
  }

  func testWithoutACAFileTheSystemRootsDoNotKnowATestCA() throws {
    let alertmanager = try TLSTestServer(certificate: server.certificate, key: server.key)
    defer { try? alertmanager.close() }
    let lines = Lines()
    let notifier = try notifier(
      url: "https://localhost:\(alertmanager.port)", tls: AlertmanagerTLSSettings(), lines: lines)
    XCTAssertFalse(deliver(notifier))
    XCTAssertTrue(
      lines.all.first?.1.contains("certificate verify failed: ") == true, "\(lines.all)")
  }

  func testInsecureSkipVerifyAcceptsAnyCertificate() throws {
    let alertmanager = try TLSTestServer(certificate: server.certificate, key: server.key)
    defer { try? alertmanager.close() }
    var tls = AlertmanagerTLSSettings()
    tls.insecureSkipVerify = true
    tls.serverName = "alertmanager.example"
    let notifier = try notifier(
      url: "https://localhost:\(alertmanager.port)", tls: tls, lines: Lines())
    XCTAssertTrue(deliver(notifier))
  }

  func testAClientCertificateIsPresentedWhenAsked() throws {
    let client = try authority.issue("client", names: ["netquality-agent"])
    let alertmanager = try TLSTestServer(
      certificate: server.certificate, key: server.key, clientCA: authority.certificateFile)
    defer { try? alertmanager.close() }
    var tls = AlertmanagerTLSSettings()
    tls.caFile = authority.certificateFile
    let url = "https://localhost:\(alertmanager.port)"
    let without = try notifier(url: url, tls: tls, lines: Lines())
    XCTAssertFalse(deliver(without), "the server asks for a certificate")
    tls.certFile = client.certificate
    tls.keyFile = client.key
    let with = try notifier(url: url, tls: tls, lines: Lines())
    XCTAssertTrue(deliver(with))
    XCTAssertEqual(alertmanager.authorizations.count, 1)
  }

  func testAnUnparsableCAFileFailsTheStartWithItsKey() {
    let path = "\(directory)/bad.pem"
    FileManager.default.createFile(
      atPath: path,
      contents: Data("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n".utf8))
    var tls = AlertmanagerTLSSettings()
    tls.caFile = path
    XCTAssertThrowsError(try AlertmanagerTLSContext.make(tls)) { error in
      XCTAssertTrue(
        "\(error)".hasPrefix("alertmanager.tls_config.ca_file: cannot load \(path): "), "\(error)")
    }
  }
}
