import Foundation
import NIOSSL

/// Where `top` reads the agent and how: `http://` or `https://`, basic auth from the URL's
/// `USER:PASSWORD@` or from flags, and for https the CA that signs the agent's certificate and
/// a client certificate (an agent secured by `--web.config.file`, docs/web.md). The flags are
/// those of Prometheus' `tls_config` (`ca_file`, `cert_file`, `key_file`,
/// `insecure_skip_verify`).
struct HTTPEndpoint: CustomStringConvertible {
  enum Scheme: String, Equatable {
    case http, https
  }

  /// Basic auth (RFC 7617): the user and password sent with every request.
  struct Credentials: Equatable {
    var username: String
    var password: String

    /// The `Authorization` header's value.
    var authorization: String {
      "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
  }

  /// The TLS files of an https endpoint; each nil when not given (the system's CAs, no client
  /// certificate).
  struct TLSFiles: Equatable {
    var caFile: String?
    var certFile: String?
    var keyFile: String?
    var insecureSkipVerify = false

    var isEmpty: Bool { self == TLSFiles() }
  }

  /// A URL or flag `top` cannot use, said as the user wrote it.
  struct InvalidArgument: Error, Equatable, CustomStringConvertible {
    var description: String
  }

  /// The agent's own default (`listen: 127.0.0.1:9470`), for a URL without a port.
  static let defaultPort: UInt16 = 9470

  var scheme: Scheme
  var host: String
  var port: UInt16
  var credentials: Credentials?
  var tls = TLSFiles()
  /// The TLS client context of an https endpoint, made once from `tls` (nil for http).
  private(set) var tlsContext: NIOSSLContext?

  /// The address, never the password.
  var description: String {
    "\(scheme.rawValue)://\(authority)"
  }

  /// HOST:PORT as the Host header and messages write it (an IPv6 address in brackets).
  var authority: String {
    "\(host.contains(":") ? "[\(host)]" : host):\(port)"
  }

  /// Parses `http[s]://[USER[:PASSWORD]@]HOST[:PORT][/]`: the user and password
  /// percent-decoded (a `:` or `@` in a password written `%3A`, `%40`), an IPv6 address in
  /// brackets, the port 9470 when left out. A path is refused: `top` asks the agent's own API.
  init(url: String) throws {
    let schemes: [(String, Scheme)] = [("http://", .http), ("https://", .https)]
    guard let match = schemes.first(where: { url.lowercased().hasPrefix($0.0) }) else {
      throw InvalidArgument(
        description: "--url \(url): expected http://HOST:PORT or https://HOST:PORT")
    }
    let (prefix, scheme) = match
    self.scheme = scheme
    let rest = url.dropFirst(prefix.count)
    let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
    let path = rest[authorityEnd...]
    guard path.isEmpty || path == "/" else {
      throw InvalidArgument(
        description: "--url \(url): no path, query or fragment (\(path)): top reads the agent's "
          + "own API paths")
    }
    var hostPort = rest[..<authorityEnd]
    // The last @: a password's own @ is meant to be written %40, but a pasted one still works.
    if let at = hostPort.lastIndex(of: "@") {
      let userInfo = hostPort[..<at]
      hostPort = hostPort[hostPort.index(after: at)...]
      let colon = userInfo.firstIndex(of: ":")
      let escapedPassword = colon.map { userInfo[userInfo.index(after: $0)...] } ?? ""
      guard let username = userInfo[..<(colon ?? userInfo.endIndex)].removingPercentEncoding,
        let password = escapedPassword.removingPercentEncoding
      else {
        throw InvalidArgument(
          description: "--url: the user or password has a bad %-escape (write % as %25)")
      }
      guard !username.isEmpty else {
        throw InvalidArgument(description: "--url: a user before the password (USER:PASSWORD@)")
      }
      credentials = Credentials(username: username, password: password)
    }
    (host, port) = try Self.hostAndPort(hostPort, url: url)
    tlsContext = try makeTLSContext()
  }

  private static func hostAndPort(_ text: Substring, url: String) throws -> (String, UInt16) {
    var host = text
    var portText: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else {
        throw InvalidArgument(description: "--url \(url): an IPv6 address without its ]")
      }
      host = text[text.index(after: text.startIndex)..<close]
      let after = text[text.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else {
          throw InvalidArgument(description: "--url \(url): expected :PORT after the ]")
        }
        portText = after.dropFirst()
      }
    } else if let colon = text.lastIndex(of: ":") {
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
      guard !host.contains(":") else {
        throw InvalidArgument(
          description: "--url \(url): write an IPv6 address in brackets, e.g. https://[::1]:9470")
      }
    }
    guard !host.isEmpty else {
      throw InvalidArgument(description: "--url \(url): no host")
    }
    guard let portText else { return (String(host), defaultPort) }
    guard let port = UInt16(portText), port > 0 else {
      throw InvalidArgument(description: "--url \(url): the port must be 1-65535")
    }
    return (String(host), port)
  }

  /// The endpoint of `--url` with the flags applied over it: `--username` and a password (the
  /// first line of `--password-file`) replace the URL's; the TLS files need https, and a
  /// client certificate needs its key.
  init(url: String, username: String?, password: String?, tls: TLSFiles) throws {
    try self.init(url: url)
    if let username {
      guard !username.isEmpty else { throw InvalidArgument(description: "--username: empty") }
      credentials = Credentials(
        username: username, password: password ?? credentials?.password ?? "")
      if password == nil, credentials?.password.isEmpty ?? true {
        throw InvalidArgument(
          description: "--username \(username): no password (--password-file FILE, or "
            + "USER:PASSWORD@ in --url)")
      }
    } else if let password {
      guard credentials != nil else {
        throw InvalidArgument(
          description: "--password-file: no user (--username USER, or USER@ in --url)")
      }
      credentials?.password = password
    }
    guard tls.isEmpty || scheme == .https else {
      throw InvalidArgument(
        description: "--ca-file, --cert-file, --key-file and --insecure-skip-verify need an "
          + "https:// --url")
    }
    guard (tls.certFile == nil) == (tls.keyFile == nil) else {
      throw InvalidArgument(description: "--cert-file and --key-file go together")
    }
    self.tls = tls
    tlsContext = try makeTLSContext()
  }

  /// The first line of a password file (its line end left out), as Prometheus reads
  /// `password_file`.
  static func password(fromFile path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InvalidArgument(description: "--password-file \(path): cannot read it")
    }
    let text = String(decoding: data, as: UTF8.self)
    // "\r\n" is one Character in Swift: split on any line end, not on "\n".
    return String(
      text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
  }

  /// A GET of `path` as `top` sends it: HTTP/1.1, one request per connection.
  func request(path: String) -> String {
    var lines = ["GET \(path) HTTP/1.1", "Host: \(authority)", "User-Agent: netquality-top"]
    if let credentials { lines.append("Authorization: \(credentials.authorization)") }
    lines.append("Connection: close")
    return lines.joined(separator: "\r\n") + "\r\n\r\n"
  }

  /// The TLS client context of an https endpoint (nil for http), each failure to read a file
  /// naming its flag.
  private func makeTLSContext() throws -> NIOSSLContext? {
    guard scheme == .https else { return nil }
    var configuration = TLSConfiguration.makeClientConfiguration()
    if let caFile = tls.caFile {
      configuration.trustRoots = .certificates(
        try Self.load("--ca-file", caFile) { try NIOSSLCertificate.fromPEMFile($0) })
    }
    if let certFile = tls.certFile, let keyFile = tls.keyFile {
      configuration.certificateChain = try Self.load("--cert-file", certFile) {
        try NIOSSLCertificate.fromPEMFile($0)
      }.map { .certificate($0) }
      configuration.privateKey = .privateKey(
        try Self.load("--key-file", keyFile) { try NIOSSLPrivateKey(file: $0, format: .pem) })
    }
    if tls.insecureSkipVerify { configuration.certificateVerification = .none }
    do {
      return try NIOSSLContext(configuration: configuration)
    } catch {
      throw InvalidArgument(description: "TLS: \(error)")
    }
  }

  private static func load<Value>(
    _ flag: String, _ path: String, _ read: (String) throws -> Value
  ) throws -> Value {
    guard FileManager.default.isReadableFile(atPath: path) else {
      throw InvalidArgument(description: "\(flag) \(path): cannot read it")
    }
    do {
      let value = try read(path)
      if let certificates = value as? [NIOSSLCertificate], certificates.isEmpty {
        throw InvalidArgument(description: "\(flag) \(path): no certificate in it")
      }
      return value
    } catch let error as InvalidArgument {
      throw error
    } catch {
      throw InvalidArgument(description: "\(flag) \(path): not PEM (\(error))")
    }
  }
}
