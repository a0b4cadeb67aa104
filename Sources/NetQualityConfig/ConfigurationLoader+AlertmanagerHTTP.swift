import Yams

/// `alertmanager.basic_auth`, `.authorization` and `.tls_config`: Prometheus' keys and rules
/// (a secret inline or from a file, not both; `authorization.type` not Basic). Files are read
/// here, at start and at each reload, so a missing one is an issue at its line.
extension Walker {
  mutating func alertmanagerBasicAuth(_ node: Node) -> AlertmanagerBasicAuth? {
    let path = "alertmanager.basic_auth"
    let fields = entries(node, path, known: ["username", "password", "password_file"])
    guard let usernameNode = fields["username"] else {
      keyIssue(path, "needs a username (and password or password_file)")
      return nil
    }
    guard let username = string(usernameNode, "\(path).username") else { return nil }
    // RFC 7617 section 2: the user-id cannot contain a colon.
    guard !username.isEmpty, !username.contains(":") else {
      issue(usernameNode, "\(path).username", "a user name is not empty and has no colon")
      return nil
    }
    guard let password = secret(fields, path, value: "password", file: "password_file")
    else { return nil }
    return AlertmanagerBasicAuth(username: username, password: password)
  }

  mutating func alertmanagerAuthorization(_ node: Node) -> AlertmanagerAuthorization? {
    let path = "alertmanager.authorization"
    let fields = entries(node, path, known: ["type", "credentials", "credentials_file"])
    var type = AlertmanagerAuthorization.defaultType
    if let typeNode = fields["type"] {
      guard let text = string(typeNode, "\(path).type") else { return nil }
      // An auth-scheme is an HTTP token (RFC 9110 section 11.1): no spaces.
      guard !text.isEmpty, !text.contains(where: { $0 == " " || $0.isNewline }) else {
        issue(typeNode, "\(path).type", "'\(text)': expected a scheme name such as Bearer")
        return nil
      }
      guard text.lowercased() != "basic" else {
        issue(typeNode, "\(path).type", "Basic is not an authorization type here: use basic_auth")
        return nil
      }
      type = text
    }
    guard
      let credentials = secret(
        fields, path, value: "credentials", file: "credentials_file")
    else { return nil }
    return AlertmanagerAuthorization(type: type, credentials: credentials)
  }

  mutating func alertmanagerTLS(_ node: Node) -> AlertmanagerTLSSettings {
    let path = "alertmanager.tls_config"
    let fields = entries(
      node, path,
      known: ["ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify"])
    var tls = AlertmanagerTLSSettings()
    tls.caFile = pemFile(fields["ca_file"], "\(path).ca_file", holding: "CERTIFICATE")
    tls.certFile = pemFile(fields["cert_file"], "\(path).cert_file", holding: "CERTIFICATE")
    tls.keyFile = pemFile(fields["key_file"], "\(path).key_file", holding: "PRIVATE KEY")
    if (fields["cert_file"] == nil) != (fields["key_file"] == nil) {
      issue(
        fields["cert_file"] ?? fields["key_file"], "\(path).cert_file",
        "cert_file and key_file go together (a client certificate and its key)")
    }
    if let nameNode = fields["server_name"], let name = string(nameNode, "\(path).server_name") {
      if name.isEmpty {
        issue(nameNode, "\(path).server_name", "an empty name: remove the key for the URL's host")
      } else {
        tls.serverName = name
      }
    }
    if let skipNode = fields["insecure_skip_verify"] {
      tls.insecureSkipVerify = bool(skipNode, "\(path).insecure_skip_verify") ?? false
    }
    return tls
  }

  /// A secret given as `value` or read from `file` (one of them); the file's content without
  /// its trailing newline, as Prometheus trims it.
  private mutating func secret(
    _ fields: [String: Node], _ path: String, value: String, file: String
  ) -> AlertmanagerSecret? {
    switch (fields[value], fields[file]) {
    case (nil, nil):
      keyIssue(path, "needs \(value) or \(file)")
      return nil
    case (.some, .some):
      issue(fields[file], "\(path).\(file)", "give \(value) or \(file), not both")
      return nil
    case (let inline?, nil):
      guard let text = string(inline, "\(path).\(value)") else { return nil }
      return AlertmanagerSecret(text, from: .inline)
    case (nil, let fileNode?):
      let key = "\(path).\(file)"
      guard let filePath = string(fileNode, key), let text = readSmallFile(fileNode, key, filePath)
      else { return nil }
      var trimmed = Substring(text)
      while trimmed.last?.isNewline == true { trimmed.removeLast() }
      guard !trimmed.isEmpty, !trimmed.contains(where: \.isNewline) else {
        issue(
          fileNode, key,
          "\(filePath): expected one line (the secret), found "
            + (trimmed.isEmpty ? "none" : "several"))
        return nil
      }
      return AlertmanagerSecret(String(trimmed), from: .file(filePath))
    }
  }

  /// An issue at the line of the key `path` (a block mapping's node starts a line below).
  private mutating func keyIssue(_ path: String, _ message: String) {
    issues.append(.init(line: keyLines[path], key: path, message: message))
  }

  /// The path at `node`, if the file is readable PEM holding a `kind` block.
  private mutating func pemFile(_ node: Node?, _ key: String, holding kind: String) -> String? {
    guard let node, let path = string(node, key), let text = readSmallFile(node, key, path) else {
      return nil
    }
    guard text.contains("-----BEGIN"), text.contains("\(kind)-----") else {
      issue(node, key, "\(path): no PEM \(kind) in it")
      return nil
    }
    return path
  }

  /// A secret or PEM file's text (at most 1 MiB: a certificate bundle is a few hundred KB).
  private mutating func readSmallFile(_ node: Node, _ key: String, _ path: String) -> String? {
    guard !path.isEmpty else {
      issue(node, key, "an empty path")
      return nil
    }
    do {
      let bytes = try BoundedFileReader.read(path: path, maximumBytes: 1 << 20)
      guard let text = String(validating: bytes, as: UTF8.self) else {
        issue(node, key, "cannot read \(path): not UTF-8 text")
        return nil
      }
      return text
    } catch {
      issue(node, key, "cannot read \(path): \(error)")
      return nil
    }
  }
}
