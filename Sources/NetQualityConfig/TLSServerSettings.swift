/// `tls_server_config:` of the web configuration file, with exporter-toolkit's names
/// (`web/tls_config.go`) and defaults: TLS 1.2 to 1.3, no client certificate.
public struct TLSServerSettings: Sendable, Equatable {
  /// PEM text inline in the file, or a file (relative paths are relative to the web
  /// configuration file's directory, as exporter-toolkit's `SetDirectory` makes them).
  public enum PEM: Sendable, Equatable {
    case file(String)
    case inline(String)
  }

  /// Go's `tls.ClientAuthType` names (https://pkg.go.dev/crypto/tls#ClientAuthType).
  public enum ClientAuth: String, Sendable, CaseIterable {
    case noClientCert = "NoClientCert"
    /// A certificate is asked for; none is needed and one given is not verified.
    case requestClientCert = "RequestClientCert"
    /// A certificate is needed, and not verified.
    case requireAnyClientCert = "RequireAnyClientCert"
    /// A certificate given must verify against `client_ca_file`; none is needed.
    case verifyClientCertIfGiven = "VerifyClientCertIfGiven"
    /// A certificate is needed and must verify against `client_ca_file`: the one mode that
    /// authenticates clients.
    case requireAndVerifyClientCert = "RequireAndVerifyClientCert"

    /// Whether the mode verifies certificates against the client CA.
    public var verifies: Bool {
      self == .verifyClientCertIfGiven || self == .requireAndVerifyClientCert
    }
  }

  /// exporter-toolkit's `TLS10` ... `TLS13`, in order.
  public enum Version: String, Sendable, CaseIterable, Comparable {
    case tls10 = "TLS10"
    case tls11 = "TLS11"
    case tls12 = "TLS12"
    case tls13 = "TLS13"

    /// The protocol's minor version number (TLS 1.x).
    public var minor: Int {
      switch self {
      case .tls10: 0
      case .tls11: 1
      case .tls12: 2
      case .tls13: 3
      }
    }

    public static func < (lhs: Version, rhs: Version) -> Bool { lhs.minor < rhs.minor }
  }

  public var certificate: PEM
  public var key: PEM
  public var clientCA: PEM?
  public var clientAuth = ClientAuth.noClientCert
  public var minVersion = Version.tls12
  public var maxVersion = Version.tls13
  /// IANA names (Go's `tls.CipherSuites()`), for TLS 1.2 and below; empty:
  /// `defaultCipherSuites`. TLS 1.3's suites cannot be chosen (as in Go).
  public var cipherSuites: [String] = []
  /// Go's `tls.CurveID` names; empty: the TLS library's defaults.
  public var curvePreferences: [String] = []
  /// Accepted for exporter-toolkit's files; as in Go since 1.17, it changes nothing.
  public var preferServerCipherSuites = true

  public init(certificate: PEM, key: PEM) {
    self.certificate = certificate
    self.key = key
  }

  /// What the listener is built with, apart from the certificate and key (see
  /// `WebConfiguration.listenerSettingsDiffer`).
  var listenerPart: [String] {
    [
      "\(clientCA.map { "\($0)" } ?? "")", clientAuth.rawValue, minVersion.rawValue,
      maxVersion.rawValue, cipherSuites.joined(separator: ":"),
      curvePreferences.joined(separator: ":"),
    ]
  }

  /// Cipher suites by name and IANA code point (https://www.iana.org/assignments/tls-parameters,
  /// "TLS Cipher Suites"): those Go's `tls.CipherSuites()` lists as secure, the ones
  /// exporter-toolkit accepts. 0x13xx are TLS 1.3's.
  public static let cipherSuiteCodes: [(name: String, code: UInt16)] = [
    ("TLS_AES_128_GCM_SHA256", 0x1301),
    ("TLS_AES_256_GCM_SHA384", 0x1302),
    ("TLS_CHACHA20_POLY1305_SHA256", 0x1303),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC009),
    ("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", 0xC00A),
    ("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC013),
    ("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", 0xC014),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02B),
    ("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 0xC02C),
    ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 0xC02F),
    ("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", 0xC030),
    ("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA8),
    ("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA9),
  ]

  /// The TLS 1.2 suites when `cipher_suites` is not given: forward-secret key exchange and
  /// AEAD only (RFC 9325 section 4.2), as exporter-toolkit's defaults and Go's since 1.22 drop
  /// static-RSA key exchange; the CBC-SHA1 suites go too (RFC 9325 section 4.2 lists them
  /// among those not recommended). The TLS library's own defaults accepted both (issue 39).
  public static let defaultCipherSuites = [
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  ]

  /// Curves by Go's name (https://pkg.go.dev/crypto/tls#CurveID) and IANA supported-group
  /// code point (RFC 8446 section 4.2.7; X25519MLKEM768: draft-ietf-tls-ecdhe-mlkem).
  public static let curveCodes: [(name: String, code: UInt16)] = [
    ("CurveP256", 23), ("CurveP384", 24), ("CurveP521", 25), ("X25519", 29),
    ("X25519MLKEM768", 0x11EC),
  ]
}
