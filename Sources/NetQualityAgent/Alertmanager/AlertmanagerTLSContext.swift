import NIOSSL
import NetQualityConfig

/// The TLS client context of `alertmanager.tls_config`: TLS 1.2 at least, Alertmanager's
/// chain verified against `ca_file` (the system's roots without one) and its name against the
/// URL's host or `server_name`, a client certificate when `cert_file` and `key_file` are set.
enum AlertmanagerTLSContext {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func make(_ settings: AlertmanagerTLSSettings) throws(Failure) -> NIOSSLContext {
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.minimumTLSVersion = .tlsv12
    configuration.certificateVerification =
      settings.insecureSkipVerify ? .none : .fullVerification
    if let caFile = settings.caFile {
      let certificates = try load("ca_file", caFile) { try NIOSSLCertificate.fromPEMFile($0) }
      configuration.trustRoots = .certificates(certificates)
    }
    if let certFile = settings.certFile, let keyFile = settings.keyFile {
      let chain = try load("cert_file", certFile) { try NIOSSLCertificate.fromPEMFile($0) }
      let key = try load("key_file", keyFile) { try NIOSSLPrivateKey(file: $0, format: .pem) }
      configuration.certificateChain = chain.map { .certificate($0) }
      configuration.privateKey = .privateKey(key)
    }
    do {
      return try NIOSSLContext(configuration: configuration)
    } catch {
      throw Failure(description: "alertmanager.tls_config: \(error)")
    }
  }

  private static func load<T>(
    _ key: String, _ path: String, _ read: (String) throws -> T
  ) throws(Failure) -> T {
    do {
      return try read(path)
    } catch {
      throw Failure(description: "alertmanager.tls_config.\(key): cannot load \(path): \(error)")
    }
  }
}
