import Foundation
import XCTest

/// A throwaway CA and certificates it signs, made with `openssl` in a temporary directory at
/// each run (nothing checked in, nothing that expires in the tree): EC P-256, valid two days.
struct TestCertificateAuthority {
  let directory: String
  let name: String

  /// The CA's certificate, for `tls_config.ca_file`.
  var certificateFile: String { "\(directory)/\(name).pem" }
  private var keyFile: String { "\(directory)/\(name).key" }

  init(directory: String, name: String) throws {
    self.directory = directory
    self.name = name
    try Self.openssl(
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
      "-keyout", keyFile, "-out", certificateFile, "-days", "2", "-subj", "/CN=\(name)")
  }

  /// A certificate for `names` (DNS names and IP addresses in its subjectAltName) signed by
  /// this CA: its certificate and key files.
  func issue(_ file: String, names: [String]) throws -> (certificate: String, key: String) {
    let base = "\(directory)/\(file)"
    let alt = names.map { name in
      name.contains(where: \.isLetter) && !name.contains(":") ? "DNS:\(name)" : "IP:\(name)"
    }
    try "subjectAltName=\(alt.joined(separator: ","))\n".write(
      toFile: "\(base).ext", atomically: false, encoding: .utf8)
    try Self.openssl(
      "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
      "-keyout", "\(base).key", "-out", "\(base).csr", "-subj", "/CN=\(names[0])")
    try Self.openssl(
      "x509", "-req", "-in", "\(base).csr", "-CA", certificateFile, "-CAkey", keyFile,
      "-CAcreateserial", "-out", "\(base).pem", "-days", "2", "-extfile", "\(base).ext")
    return ("\(base).pem", "\(base).key")
  }

  private static func openssl(_ arguments: String...) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw XCTSkip(
        "openssl \(arguments.joined(separator: " ")) failed: "
          + String(decoding: message, as: UTF8.self))
    }
  }
}
