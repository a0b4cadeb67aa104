/// How the agent authenticates to Alertmanager and checks its certificate: Prometheus'
/// `alertmanager_config` keys `basic_auth`, `authorization` and `tls_config`, with their names
/// and meaning (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#alertmanager_config).
public struct AlertmanagerHTTPSettings: Sendable, Equatable {
  /// `basic_auth`: a user and password (RFC 7617).
  public var basicAuth: AlertmanagerBasicAuth?
  /// `authorization`: `TYPE CREDENTIALS` in the Authorization header, Bearer by default.
  public var authorization: AlertmanagerAuthorization?
  public var tls = AlertmanagerTLSSettings()

  public init() {}

  /// Whether a secret is configured: its value is read at start and at each reload.
  public var hasCredentials: Bool { basicAuth != nil || authorization != nil }

  /// Takes the secrets' values from `other`, a fresh read of the same settings (a reload
  /// re-reads `password_file` and `credentials_file`; the settings themselves need a restart).
  /// Only a secret read from the same file is taken: any other change waits for the restart.
  public mutating func takeSecrets(from other: AlertmanagerHTTPSettings) {
    if let password = other.basicAuth?.password, password.source == basicAuth?.password.source {
      basicAuth?.password = password
    }
    if let credentials = other.authorization?.credentials,
      credentials.source == authorization?.credentials.source
    {
      authorization?.credentials = credentials
    }
  }
}

/// A password or token: written in the file or read from one. Never printed: its description
/// names where it comes from, not what it is. Two secrets are the same setting when written
/// the same way: the same inline value, or the same file (whose content a reload re-reads and
/// applies without a restart).
public struct AlertmanagerSecret: Sendable, Equatable, CustomStringConvertible {
  public enum Source: Sendable, Equatable {
    case inline
    case file(String)
  }

  public var source: Source
  public var value: String

  public init(_ value: String, from source: Source) {
    self.value = value
    self.source = source
  }

  public static func == (a: Self, b: Self) -> Bool {
    switch (a.source, b.source) {
    case (.inline, .inline): a.value == b.value
    case (.file(let x), .file(let y)): x == y
    default: false
    }
  }

  public var description: String {
    switch source {
    case .inline: "<secret>"
    case .file(let path): "<secret from \(path)>"
    }
  }
}

public struct AlertmanagerBasicAuth: Sendable, Equatable {
  public var username: String
  public var password: AlertmanagerSecret

  public init(username: String, password: AlertmanagerSecret) {
    self.username = username
    self.password = password
  }
}

public struct AlertmanagerAuthorization: Sendable, Equatable {
  /// Prometheus' default type.
  public static let defaultType = "Bearer"

  public var type: String
  public var credentials: AlertmanagerSecret

  public init(type: String = defaultType, credentials: AlertmanagerSecret) {
    self.type = type
    self.credentials = credentials
  }
}

/// `tls_config`: the files are read when the notifier starts (they need a restart, as the
/// URLs do); checked readable when the configuration is loaded.
public struct AlertmanagerTLSSettings: Sendable, Equatable {
  /// CA certificates to verify Alertmanager's certificate with; nil: the system's roots.
  public var caFile: String?
  /// A client certificate and its key, for an Alertmanager that asks for one.
  public var certFile: String?
  public var keyFile: String?
  /// The name sent (SNI) and checked in the certificate; nil: the URL's host.
  public var serverName: String?
  /// Accept any certificate (no chain and no name check): for tests only, as in Prometheus.
  public var insecureSkipVerify = false

  public init() {}
}
