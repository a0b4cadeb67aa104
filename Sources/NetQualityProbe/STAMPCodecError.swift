/// Why a STAMP packet could not be read or written. Decoding never traps: a short or foreign
/// datagram is one of these.
public enum STAMPCodecError: Error, Hashable, Sendable {
  /// The datagram is shorter than the base packet of its mode.
  case tooShort(length: Int, minimumLength: Int)
  /// An authenticated packet whose HMAC does not match the key (RFC 8762 section 4.4).
  case badHMAC
  /// Encoding was asked for a total length below the base packet of its mode.
  case lengthBelowBase(requestedLength: Int, baseLength: Int)
  /// The caller's buffer cannot hold the requested total length.
  case bufferTooSmall(capacity: Int, neededLength: Int)
}

extension STAMPCodecError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .tooShort(let length, let minimum):
      "packet of \(length) bytes is shorter than the \(minimum)-byte STAMP base packet"
    case .badHMAC:
      "HMAC does not match the key"
    case .lengthBelowBase(let requested, let base):
      "total length \(requested) is below the \(base)-byte STAMP base packet"
    case .bufferTooSmall(let capacity, let needed):
      "buffer of \(capacity) bytes cannot hold a \(needed)-byte packet"
    }
  }
}
