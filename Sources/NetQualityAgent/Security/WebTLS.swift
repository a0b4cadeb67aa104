import Foundation
import NIOCore
import NIOSSL
import NetQualityConfig
import Synchronization

/// The listener's TLS from `tls_server_config`: the certificate and key (read again by every
/// reload, used from the next handshake: cert-manager or certbot can renew without a restart),
/// the client certificate policy, versions, cipher suites and curves (fixed when the listener
/// starts).
final class WebTLS: Sendable {
  /// What the files hold, parsed.
  struct Material: Sendable {
    var certificateChain: [NIOSSLCertificate]
    var privateKey: NIOSSLPrivateKey
    var clientCA: [NIOSSLCertificate]?
  }

  let settings: TLSServerSettings
  private let identity: Mutex<Material>

  init(settings: TLSServerSettings, material: Material) {
    self.settings = settings
    identity = Mutex(material)
  }

  /// From the next handshake, this certificate and key.
  func replaceIdentity(_ material: Material) {
    identity.withLock { $0 = material }
  }

  /// The NIOSSL configuration of the listener; the certificate and key come from the latest
  /// `replaceIdentity` at each handshake (`sslContextCallback`).
  var configuration: TLSConfiguration {
    var configuration = Self.configuration(
      settings, material: identity.withLock { $0 })
    configuration.sslContextCallback = { [self] _, promise in
      let material = self.identity.withLock { $0 }
      var override = NIOSSLContextConfigurationOverride()
      override.certificateChain = material.certificateChain.map { .certificate($0) }
      override.privateKey = .privateKey(material.privateKey)
      promise.succeed(override)
    }
    return configuration
  }

  /// Client certificates that are asked for (or required) but not verified, by Go's meaning
  /// of RequestClientCert and RequireAnyClientCert: any certificate passes.
  var customVerification:
    (@Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResult>) -> Void)?
  {
    switch settings.clientAuth {
    case .requestClientCert, .requireAnyClientCert:
      { _, promise in promise.succeed(.certificateVerified) }
    case .noClientCert, .verifyClientCertIfGiven, .requireAndVerifyClientCert:
      nil
    }
  }

  static func configuration(_ settings: TLSServerSettings, material: Material) -> TLSConfiguration {
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: material.certificateChain.map { .certificate($0) },
      privateKey: .privateKey(material.privateKey))
    configuration.minimumTLSVersion = version(settings.minVersion)
    configuration.maximumTLSVersion = version(settings.maxVersion)
    // TLS 1.3's suites cannot be chosen (BoringSSL, as Go): only the others are passed.
    let named =
      settings.cipherSuites.isEmpty ? TLSServerSettings.defaultCipherSuites : settings.cipherSuites
    let suites = named.compactMap { name in
      TLSServerSettings.cipherSuiteCodes.first { $0.name == name }?.code
    }.filter { $0 >> 8 != 0x13 }
    if !suites.isEmpty {
      configuration.cipherSuiteValues = suites.map { NIOTLSCipher(rawValue: $0) }
    }
    let curves = settings.curvePreferences.compactMap { name in
      TLSServerSettings.curveCodes.first { $0.name == name }?.code
    }
    if !curves.isEmpty { configuration.curves = curves.map { NIOTLSCurve(rawValue: $0) } }
    switch settings.clientAuth {
    case .noClientCert:
      configuration.certificateVerification = .none
    case .requestClientCert:
      configuration.certificateVerification = .optionalVerification
    case .requireAnyClientCert:
      configuration.certificateVerification = .noHostnameVerification
    case .verifyClientCertIfGiven:
      configuration.certificateVerification = .optionalVerification
    case .requireAndVerifyClientCert:
      configuration.certificateVerification = .noHostnameVerification
    }
    if settings.clientAuth != .noClientCert {
      configuration.trustRoots = .certificates(material.clientCA ?? [])
      configuration.sendCANameList = material.clientCA != nil
    }
    return configuration
  }

  static func version(_ version: TLSServerSettings.Version) -> TLSVersion {
    switch version {
    case .tls10: .tlsv1
    case .tls11: .tlsv11
    case .tls12: .tlsv12
    case .tls13: .tlsv13
    }
  }

  /// Reads and parses the certificate, key and client CA, and builds a TLS context from them
  /// (which fails when the key is not the certificate's); each problem an issue naming its key.
  static func material(
    _ settings: TLSServerSettings, file: String, keyLines: [String: Int]
  ) throws(ConfigurationError) -> Material {
    var issues: [ConfigurationError.Issue] = []
    func issue(_ key: String, _ message: String) {
      let full = "tls_server_config.\(key)"
      issues.append(.init(line: keyLines[full], key: full, message: message))
    }
    func text(_ pem: TLSServerSettings.PEM, _ fileKey: String, _ inlineKey: String) -> (
      bytes: [UInt8], key: String
    )? {
      switch pem {
      case .inline(let text): return (Array(text.utf8), inlineKey)
      case .file(let path):
        // Bounded like every file taken as configuration: a FIFO or a device named here
        // cannot hang the start or a reload.
        do {
          return (try BoundedFileReader.read(path: path), fileKey)
        } catch {
          let reason = access(path, F_OK) == 0 ? error.description : "no such file"
          issue(fileKey, "cannot read \(path): \(reason)")
          return nil
        }
      }
    }
    func certificates(_ pem: TLSServerSettings.PEM, _ fileKey: String, _ inlineKey: String)
      -> [NIOSSLCertificate]?
    {
      guard let (bytes, key) = text(pem, fileKey, inlineKey) else { return nil }
      guard let chain = try? NIOSSLCertificate.fromPEMBytes(bytes), !chain.isEmpty else {
        issue(key, "\(describe(pem)) holds no PEM certificate")
        return nil
      }
      return chain
    }
    let chain = certificates(settings.certificate, "cert_file", "cert")
    var privateKey: NIOSSLPrivateKey?
    if let (bytes, key) = text(settings.key, "key_file", "key") {
      privateKey = try? NIOSSLPrivateKey(bytes: bytes, format: .pem)
      if privateKey == nil {
        issue(key, "\(describe(settings.key)) holds no PEM private key (or an encrypted one)")
      }
    }
    let clientCA = settings.clientCA.flatMap {
      certificates($0, "client_ca_file", "client_ca")
    }
    guard issues.isEmpty, let chain, let privateKey else {
      throw ConfigurationError(file: file, issues: issues)
    }
    let material = Material(certificateChain: chain, privateKey: privateKey, clientCA: clientCA)
    do {
      _ = try NIOSSLContext(configuration: configuration(settings, material: material))
    } catch {
      issue(
        settings.key.isFile ? "key_file" : "key",
        "the key does not go with the certificate, or the TLS library refuses them: \(error)")
      throw ConfigurationError(file: file, issues: issues)
    }
    return material
  }

  private static func describe(_ pem: TLSServerSettings.PEM) -> String {
    switch pem {
    case .file(let path): path
    case .inline: "the inline text"
    }
  }
}

extension TLSServerSettings.PEM {
  var isFile: Bool {
    if case .file = self { return true }
    return false
  }
}
