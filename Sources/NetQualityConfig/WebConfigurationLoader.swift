import Foundation
import Yams

/// Reads a web configuration file (see `WebConfiguration`) the way `ConfigurationLoader` reads
/// the agent's: every wrong key, type or value an issue with its line, all collected. What
/// needs the TLS library (the certificate and key read and matched) is checked by the agent's
/// `WebSecurity.load`, which the agent, its reload and `check-config` all call.
public enum WebConfigurationLoader {
  public static func load(path: String) throws(ConfigurationError) -> WebConfiguration {
    try load(yaml: ConfigurationLoader.text(path: path), file: path)
  }

  /// Relative file names in the text are taken from the directory of `file`.
  public static func load(yaml text: String, file: String) throws(ConfigurationError)
    -> WebConfiguration
  {
    var configuration = WebConfiguration()
    configuration.file = file
    let directory = (file as NSString).deletingLastPathComponent
    configuration.keyLines = try ConfigurationLoader.walk(yaml: text, file: file) {
      walker, root in
      walker.applyWeb(root, directory: directory, to: &configuration)
    }
    return configuration
  }
}

extension Walker {
  mutating func applyWeb(
    _ root: Node, directory: String, to configuration: inout WebConfiguration
  ) {
    let top = entries(
      root, "",
      known: ["tls_server_config", "http_server_config", "basic_auth_users", "rate_limit"])
    if let node = top["tls_server_config"] {
      configuration.tls = tlsServer(node, directory: directory)
    }
    if let node = top["http_server_config"] { applyHTTPServer(node, to: &configuration) }
    if let node = top["basic_auth_users"] { configuration.basicAuthUsers = basicAuthUsers(node) }
    if let node = top["rate_limit"] { configuration.rateLimit = rateLimit(node) }
  }

  /// nil when the section sets nothing TLS needs (exporter-toolkit's `IsEnabled`): plain HTTP.
  mutating func tlsServer(_ node: Node, directory: String) -> TLSServerSettings? {
    let path = "tls_server_config"
    let fields = entries(
      node, path,
      known: [
        "cert", "key", "client_ca", "cert_file", "key_file", "client_auth_type", "client_ca_file",
        "client_allowed_sans", "min_version", "max_version", "cipher_suites",
        "prefer_server_cipher_suites", "curve_preferences",
      ])
    func pem(inline: String, file: String) -> TLSServerSettings.PEM? {
      let text = fields[inline].flatMap { string($0, "\(path).\(inline)") } ?? ""
      let name = fields[file].flatMap { string($0, "\(path).\(file)") } ?? ""
      if !text.isEmpty && !name.isEmpty {
        issue(fields[inline], "\(path).\(inline)", "give \(inline) or \(file), not both")
      }
      if !name.isEmpty {
        return .file(
          name.hasPrefix("/") ? name : (directory as NSString).appendingPathComponent(name))
      }
      return text.isEmpty ? nil : .inline(text)
    }
    let certificate = pem(inline: "cert", file: "cert_file")
    let key = pem(inline: "key", file: "key_file")
    let clientCA = pem(inline: "client_ca", file: "client_ca_file")
    let clientAuthText = fields["client_auth_type"].flatMap {
      string($0, "\(path).client_auth_type")
    }
    if certificate == nil && key == nil && clientCA == nil && (clientAuthText ?? "").isEmpty {
      for name in fields.keys.sorted()
      where !["cert", "key", "cert_file", "key_file"].contains(name) {
        issue(fields[name], "\(path).\(name)", "set without cert_file and key_file")
      }
      return nil
    }
    guard let certificate else {
      issue(node, "\(path).cert_file", "TLS needs cert_file (or cert)")
      return nil
    }
    guard let key else {
      issue(node, "\(path).key_file", "TLS needs key_file (or key)")
      return nil
    }
    var settings = TLSServerSettings(certificate: certificate, key: key)
    settings.clientCA = clientCA
    if let text = clientAuthText, !text.isEmpty {
      // exporter-toolkit still takes RequireClientCert, its old name for RequireAnyClientCert.
      if let mode = TLSServerSettings.ClientAuth(
        rawValue: text == "RequireClientCert" ? "RequireAnyClientCert" : text)
      {
        settings.clientAuth = mode
      } else {
        let names = TLSServerSettings.ClientAuth.allCases.map(\.rawValue).joined(separator: ", ")
        issue(
          fields["client_auth_type"], "\(path).client_auth_type", "unknown '\(text)'; use \(names)")
      }
    }
    if clientCA != nil && settings.clientAuth == .noClientCert {
      issue(
        fields["client_ca_file"] ?? fields["client_ca"], "\(path).client_ca_file",
        "a client CA without a client_auth_type (RequireAndVerifyClientCert authenticates clients)")
    }
    if settings.clientAuth.verifies && clientCA == nil {
      issue(
        fields["client_auth_type"], "\(path).client_auth_type",
        "\(settings.clientAuth.rawValue) needs client_ca_file (the CA that signs client certificates)"
      )
    }
    if let node = fields["client_allowed_sans"] {
      issue(
        node, "\(path).client_allowed_sans",
        "not supported by netquality: use RequireAndVerifyClientCert with a CA that signs only "
          + "the scrapers' certificates")
    }
    if let version = fields["min_version"].flatMap({ tlsVersion($0, "\(path).min_version") }) {
      settings.minVersion = version
    }
    if let version = fields["max_version"].flatMap({ tlsVersion($0, "\(path).max_version") }) {
      settings.maxVersion = version
    }
    if settings.minVersion > settings.maxVersion {
      issue(
        fields["min_version"], "\(path).min_version",
        "\(settings.minVersion.rawValue) is above max_version \(settings.maxVersion.rawValue)")
    }
    if let node = fields["cipher_suites"] {
      settings.cipherSuites = names(
        node, "\(path).cipher_suites", known: TLSServerSettings.cipherSuiteCodes.map(\.name))
    }
    if let node = fields["curve_preferences"] {
      settings.curvePreferences = names(
        node, "\(path).curve_preferences", known: TLSServerSettings.curveCodes.map(\.name))
    }
    if let node = fields["prefer_server_cipher_suites"],
      let value = bool(node, "\(path).prefer_server_cipher_suites")
    {
      settings.preferServerCipherSuites = value
    }
    return settings
  }

  mutating func tlsVersion(_ node: Node, _ key: String) -> TLSServerSettings.Version? {
    guard let text = string(node, key) else { return nil }
    guard let version = TLSServerSettings.Version(rawValue: text) else {
      let names = TLSServerSettings.Version.allCases.map(\.rawValue).joined(separator: ", ")
      issue(node, key, "unknown TLS version '\(text)'; use \(names)")
      return nil
    }
    return version
  }

  /// A list of names, each one of `known`.
  mutating func names(_ node: Node, _ key: String, known: [String]) -> [String] {
    list(node, key).enumerated().compactMap { index, item in
      guard let name = string(item, "\(key)[\(index)]") else { return nil }
      guard known.contains(name) else {
        issue(
          item, "\(key)[\(index)]", "unknown '\(name)'; known: \(known.joined(separator: ", "))")
        return nil
      }
      return name
    }
  }

  mutating func applyHTTPServer(_ node: Node, to configuration: inout WebConfiguration) {
    let fields = entries(node, "http_server_config", known: ["http2", "headers"])
    if let node = fields["http2"], let value = bool(node, "http_server_config.http2") {
      configuration.http2 = value
    }
    guard let headers = fields["headers"] else { return }
    guard let mapping = headers.mapping else {
      issue(headers, "http_server_config.headers", "expected a mapping of header names to values")
      return
    }
    for (nameNode, valueNode) in mapping {
      let key = "http_server_config.headers.\(nameNode.string ?? "")"
      keyLines[key] = nameNode.mark?.line
      guard let name = nameNode.string,
        let allowed = WebConfiguration.allowedHeaders.first(where: {
          $0.name.lowercased() == name.lowercased()
        })
      else {
        let names = WebConfiguration.allowedHeaders.map(\.name).joined(separator: ", ")
        issue(nameNode, key, "this header cannot be set; headers are \(names)")
        continue
      }
      guard let value = string(valueNode, key) else { continue }
      if let values = allowed.values, !values.contains(value) {
        issue(valueNode, key, "'\(value)' is not allowed; use \(values.joined(separator: " or "))")
        continue
      }
      // Blank: unset (exporter-toolkit).
      if !value.isEmpty { configuration.headers[allowed.name] = value }
    }
  }

  mutating func basicAuthUsers(_ node: Node) -> [String: String] {
    guard let mapping = node.mapping else {
      issue(node, "basic_auth_users", "expected a mapping of user names to bcrypt hashes")
      return [:]
    }
    var users: [String: String] = [:]
    for (nameNode, hashNode) in mapping {
      guard let name = nameNode.string, !name.isEmpty else {
        issue(nameNode, "basic_auth_users", "a user name must be a non-empty string")
        continue
      }
      let key = "basic_auth_users.\(name)"
      keyLines[key] = nameNode.mark?.line
      // RFC 7617 section 2: the user-id cannot contain a colon.
      guard !name.contains(":") else {
        issue(nameNode, key, "a user name cannot contain ':' (RFC 7617)")
        continue
      }
      guard let hash = string(hashNode, key) else { continue }
      if let problem = BcryptHash.problem(hash) {
        issue(hashNode, key, problem)
        continue
      }
      users[name] = hash
    }
    return users
  }

  mutating func rateLimit(_ node: Node) -> WebConfiguration.RateLimit? {
    let fields = entries(node, "rate_limit", known: ["interval", "burst"])
    var interval = 0.0
    if let node = fields["interval"], let text = string(node, "rate_limit.interval") {
      guard let seconds = GoDuration.seconds(text) else {
        issue(
          node, "rate_limit.interval", "'\(text)' is not a duration (e.g. 100ms, 1s, 0 for off)")
        return nil
      }
      interval = seconds
    }
    let burst = fields["burst"].flatMap { integer($0, "rate_limit.burst", in: 0...1_000_000) } ?? 0
    // exporter-toolkit: an interval of 0 turns the limiter off.
    guard interval > 0 else { return nil }
    guard burst > 0 else {
      issue(
        node, "rate_limit.burst",
        "with an interval, burst must be 1 or more (no request would pass)")
      return nil
    }
    return WebConfiguration.RateLimit(intervalSeconds: interval, burst: burst)
  }
}
