import Foundation
import XCTest

@testable import netquality

/// `top --url` and its flags: what reaches the agent, and one line for what cannot.
final class HTTPEndpointTests: XCTestCase {
  func testPlainURLKeepsItsHostAndPort() throws {
    let endpoint = try HTTPEndpoint(url: "http://127.0.0.1:9470")
    XCTAssertEqual(endpoint.scheme, .http)
    XCTAssertEqual(endpoint.host, "127.0.0.1")
    XCTAssertEqual(endpoint.port, 9470)
    XCTAssertNil(endpoint.credentials)
    XCTAssertNil(endpoint.tlsContext)
    XCTAssertEqual("\(endpoint)", "http://127.0.0.1:9470")
  }

  func testHTTPSWithUserAndPasswordAndATrailingSlash() throws {
    let endpoint = try HTTPEndpoint(url: "https://prometheus:secret@agent.example:19481/")
    XCTAssertEqual(endpoint.scheme, .https)
    XCTAssertEqual(endpoint.host, "agent.example")
    XCTAssertEqual(endpoint.port, 19481)
    XCTAssertEqual(endpoint.credentials, .init(username: "prometheus", password: "secret"))
    XCTAssertNotNil(endpoint.tlsContext)
    // The password never shows in what top prints.
    XCTAssertEqual("\(endpoint)", "https://agent.example:19481")
  }

  func testTheSchemeIsCaseInsensitiveAndThePortDefaultsToTheAgents() throws {
    let endpoint = try HTTPEndpoint(url: "HTTPS://agent")
    XCTAssertEqual(endpoint.scheme, .https)
    XCTAssertEqual(endpoint.port, 9470)
  }

  func testPercentEscapesAndColonsInThePassword() throws {
    // The user ends at the first colon; the password may hold more, and %-escapes decode.
    let endpoint = try HTTPEndpoint(url: "https://op%20s:pa:ss%40w%3Ard@127.0.0.1:1")
    XCTAssertEqual(endpoint.credentials, .init(username: "op s", password: "pa:ss@w:rd"))
    // A pasted @ in the password still works: the host starts after the last @.
    let pasted = try HTTPEndpoint(url: "http://u:p@ss@127.0.0.1:2")
    XCTAssertEqual(pasted.credentials, .init(username: "u", password: "p@ss"))
    XCTAssertEqual(pasted.host, "127.0.0.1")
    // A user alone has an empty password.
    XCTAssertEqual(
      try HTTPEndpoint(url: "http://u@h:3").credentials, .init(username: "u", password: ""))
  }

  func testIPv6AddressesInBrackets() throws {
    let endpoint = try HTTPEndpoint(url: "https://u:p@[::1]:19481")
    XCTAssertEqual(endpoint.host, "::1")
    XCTAssertEqual(endpoint.port, 19481)
    XCTAssertEqual(endpoint.authority, "[::1]:19481")
    XCTAssertEqual(try HTTPEndpoint(url: "http://[2001:db8::1]").port, 9470)
  }

  func testWhatIsRefusedSaysWhy() {
    let cases: [(String, String)] = [
      ("ftp://h:1", "--url ftp://h:1: expected http://HOST:PORT or https://HOST:PORT"),
      ("127.0.0.1:9470", "--url 127.0.0.1:9470: expected http://HOST:PORT or https://HOST:PORT"),
      ("http://h:0", "--url http://h:0: the port must be 1-65535"),
      ("http://h:65536", "--url http://h:65536: the port must be 1-65535"),
      ("http://h:x", "--url http://h:x: the port must be 1-65535"),
      ("http://:9470", "--url http://:9470: no host"),
      (
        "http://::1:9470",
        "--url http://::1:9470: write an IPv6 address in brackets, e.g. https://[::1]:9470"
      ),
      ("http://[::1:9470", "--url http://[::1:9470: an IPv6 address without its ]"),
      ("http://[::1]9470", "--url http://[::1]9470: expected :PORT after the ]"),
      (
        "http://h:1/metrics",
        "--url http://h:1/metrics: no path, query or fragment (/metrics): top reads the agent's own API paths"
      ),
      ("http://:p@h:1", "--url: a user before the password (USER:PASSWORD@)"),
      ("http://u:%zz@h:1", "--url: the user or password has a bad %-escape (write % as %25)"),
    ]
    for (url, message) in cases {
      XCTAssertThrowsError(try HTTPEndpoint(url: url), url) { error in
        XCTAssertEqual("\(error)", message)
      }
    }
  }

  func testFlagsReplaceTheURLsCredentials() throws {
    let none = HTTPEndpoint.TLSFiles()
    let both = try HTTPEndpoint(
      url: "https://a:b@h:1", username: "c", password: "d", tls: none)
    XCTAssertEqual(both.credentials, .init(username: "c", password: "d"))
    // A password file alone goes with the URL's user.
    let password = try HTTPEndpoint(url: "https://a@h:1", username: nil, password: "e", tls: none)
    XCTAssertEqual(password.credentials, .init(username: "a", password: "e"))
    // A user flag alone keeps the URL's password.
    let user = try HTTPEndpoint(url: "https://a:b@h:1", username: "f", password: nil, tls: none)
    XCTAssertEqual(user.credentials, .init(username: "f", password: "b"))
    XCTAssertThrowsError(
      try HTTPEndpoint(url: "https://h:1", username: "f", password: nil, tls: none)
    ) {
      XCTAssertEqual(
        "\($0)", "--username f: no password (--password-file FILE, or USER:PASSWORD@ in --url)")
    }
    XCTAssertThrowsError(
      try HTTPEndpoint(url: "https://h:1", username: nil, password: "p", tls: none)
    ) {
      XCTAssertEqual("\($0)", "--password-file: no user (--username USER, or USER@ in --url)")
    }
  }

  func testTLSFlagsNeedHTTPSAndAClientCertificateNeedsItsKey() {
    XCTAssertThrowsError(
      try HTTPEndpoint(
        url: "http://h:1", username: nil, password: nil, tls: .init(insecureSkipVerify: true))
    ) {
      XCTAssertEqual(
        "\($0)",
        "--ca-file, --cert-file, --key-file and --insecure-skip-verify need an https:// --url")
    }
    XCTAssertThrowsError(
      try HTTPEndpoint(
        url: "https://h:1", username: nil, password: nil, tls: .init(certFile: "client.pem"))
    ) {
      XCTAssertEqual("\($0)", "--cert-file and --key-file go together")
    }
    XCTAssertThrowsError(
      try HTTPEndpoint(
        url: "https://h:1", username: nil, password: nil,
        tls: .init(caFile: "/nonexistent/ca.pem"))
    ) {
      XCTAssertEqual("\($0)", "--ca-file /nonexistent/ca.pem: cannot read it")
    }
  }

  func testACAFileThatIsNotPEMIsNamed() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-ca-\(UUID().uuidString).pem")
    try Data("not a certificate\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    XCTAssertThrowsError(
      try HTTPEndpoint(
        url: "https://h:1", username: nil, password: nil, tls: .init(caFile: file.path))
    ) {
      XCTAssertTrue("\($0)".hasPrefix("--ca-file \(file.path): "), "\($0)")
    }
  }

  func testThePasswordFileGivesItsFirstLine() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-password-\(UUID().uuidString)")
    try Data("s3:cr@t\r\nsecond line\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    XCTAssertEqual(try HTTPEndpoint.password(fromFile: file.path), "s3:cr@t")
    XCTAssertThrowsError(try HTTPEndpoint.password(fromFile: file.path + ".missing")) {
      XCTAssertEqual("\($0)", "--password-file \(file.path).missing: cannot read it")
    }
  }

  func testTheRequestCarriesBasicAuth() throws {
    let endpoint = try HTTPEndpoint(url: "https://prometheus:secret@[::1]:19481")
    XCTAssertEqual(
      endpoint.request(path: "/api/v1/peers?limit=1"),
      "GET /api/v1/peers?limit=1 HTTP/1.1\r\nHost: [::1]:19481\r\nUser-Agent: netquality-top\r\n"
        + "Authorization: Basic cHJvbWV0aGV1czpzZWNyZXQ=\r\nConnection: close\r\n\r\n")
    XCTAssertFalse(
      try HTTPEndpoint(url: "http://h:1").request(path: "/").contains("Authorization"))
  }
}
