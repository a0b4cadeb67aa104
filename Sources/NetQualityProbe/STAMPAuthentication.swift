import Crypto
import Foundation

/// A shared secret for authenticated STAMP (RFC 8762 section 4.4): HMAC-SHA-256 over the
/// octets before the HMAC field, truncated to its first 128 bits.
///
/// The keyed HMAC state (the hashes of the key XOR ipad and opad, RFC 2104) is computed once
/// here, so a packet costs two SHA-256 compressions of its own and no key schedule. The key's
/// bytes never appear in a description or an error.
public struct STAMPKey: Sendable {
  /// A label for logs and errors (from the key file), never the secret.
  public let name: String
  private let keyedHMAC: HMAC<SHA256>

  /// RFC 8762 section 4.4: the HMAC field carries HMAC-SHA-256 truncated to 128 bits.
  public static let hmacLengthBytes = 16
  /// Both authenticated layouts (sections 4.2.2 and 4.3.2) put the HMAC at octets 96-111 and
  /// have it cover octets 0-95, every field before it.
  public static let hmacOffset = 96
  /// The shortest key accepted: 128 bits, the strength of the truncated HMAC (RFC 2104
  /// section 3 advises keys no shorter than the output that is relied on).
  public static let minimumLengthBytes = 16

  /// A key from its bytes, or nil when it is shorter than `minimumLengthBytes`.
  public init?(name: String, bytes: [UInt8]) {
    guard bytes.count >= Self.minimumLengthBytes else { return nil }
    self.name = name
    keyedHMAC = HMAC<SHA256>(key: SymmetricKey(data: bytes))
  }

  /// Whether `other` holds the same secret (its name aside): their HMACs of one fixed block
  /// agree. A reload uses it to tell a key file rewritten with a new key from one unchanged.
  public func isSameKey(as other: STAMPKey) -> Bool {
    let block = [UInt8](repeating: 0, count: Self.hmacOffset)
    return block.withUnsafeBytes { truncatedCode(for: $0) == other.truncatedCode(for: $0) }
  }

  /// Writes the HMAC of `packet[0 ..< 96]` into `packet[96 ..< 112]`. The caller has checked
  /// that the packet holds an authenticated base packet.
  func sign(_ packet: UnsafeMutableRawBufferPointer) {
    let code = truncatedCode(for: UnsafeRawBufferPointer(packet))
    packet.storeBytes(of: code.0, toByteOffset: Self.hmacOffset, as: UInt64.self)
    packet.storeBytes(of: code.1, toByteOffset: Self.hmacOffset + 8, as: UInt64.self)
  }

  /// Whether `packet[96 ..< 112]` is the HMAC of `packet[0 ..< 96]`, compared in time that does
  /// not depend on where the codes differ. False for a packet too short to carry one.
  public func isValidHMAC(of packet: UnsafeRawBufferPointer) -> Bool {
    guard packet.count >= Self.hmacOffset + Self.hmacLengthBytes else { return false }
    let code = truncatedCode(for: packet)
    let carried0 = packet.loadUnaligned(fromByteOffset: Self.hmacOffset, as: UInt64.self)
    let carried1 = packet.loadUnaligned(fromByteOffset: Self.hmacOffset + 8, as: UInt64.self)
    // No early exit: the two XORs and the OR run whatever the bytes.
    return (code.0 ^ carried0) | (code.1 ^ carried1) == 0
  }

  /// Whether `packet` carries a valid HMAC (see the buffer form).
  public func isValidHMAC(of packet: [UInt8]) -> Bool {
    packet.withUnsafeBytes { isValidHMAC(of: $0) }
  }

  /// The first 16 bytes of HMAC-SHA-256 over `packet[0 ..< 96]`, as two words in memory order
  /// (stored back unchanged, so the byte order never matters).
  private func truncatedCode(for packet: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
    var hmac = keyedHMAC
    hmac.update(data: UnsafeRawBufferPointer(rebasing: packet[0..<Self.hmacOffset]))
    // A SHA-256 code is 32 bytes, so both loads are in bounds.
    return hmac.finalize().withUnsafeBytes { bytes in
      (
        bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
        bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
      )
    }
  }
}

extension STAMPKey: CustomStringConvertible {
  public var description: String { "STAMPKey(\(name))" }
}
