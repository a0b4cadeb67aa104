/// The fixed RTP header (RFC 3550 section 5.1) with the sizes derived from CSRC list,
/// header extension and padding.
public struct RTPHeader: Sendable, Equatable {
  public var marker: Bool
  public var payloadType: UInt8
  public var sequenceNumber: UInt16
  public var timestamp: UInt32
  public var ssrc: UInt32
  /// Fixed header + CSRC list + extension, in bytes.
  public var headerLength: Int
  /// Media payload bytes: the datagram minus header and padding.
  public var payloadLength: Int
  /// The P bit (RFC 3550 section 5.1). In the clear under SRTP, where the padding count is
  /// not (RFC 3711 section 3.1 encrypts the payload and its padding): libwebrtc sets it only
  /// on padding packets (bandwidth probes), so it tells them apart where the length cannot.
  public var padded: Bool

  public enum ParseError: Error, Equatable {
    /// Not version 2 (RFC 3550 section 5.1: V = 2).
    case version
    /// CSRC list or extension runs past the datagram.
    case headerLength
    /// Padding count of zero or larger than the payload (RFC 3550 section 5.1, P bit).
    case padding
  }

  /// The header, or nil when `parse` would fail: the per-packet form, without the reason.
  @inline(__always)
  public static func parsed(_ bytes: UnsafeRawBufferPointer, wireLength: Int) -> RTPHeader? {
    guard case .success(let header) = parse(bytes, wireLength: wireLength) else { return nil }
    return header
  }

  /// Parses the header from the captured bytes. `wireLength` is the UDP payload length on the
  /// wire, which may exceed `bytes.count` under a snap length; the padding count is then unknown
  /// and taken as zero.
  @inline(__always)
  public static func parse(
    _ bytes: UnsafeRawBufferPointer, wireLength: Int
  ) -> Result<RTPHeader, ParseError> {
    guard bytes.count >= 12 else { return .failure(.headerLength) }
    let first = bytes.byte(at: 0)
    guard first >> 6 == 2 else { return .failure(.version) }
    let second = bytes.byte(at: 1)
    var headerLength = 12 + Int(first & 0x0F) * 4
    if first & 0x10 != 0 {
      // RFC 3550 section 5.3.1: 16-bit profile id, 16-bit length in 32-bit words.
      guard bytes.count >= headerLength + 4 else { return .failure(.headerLength) }
      headerLength += 4 + Int(bytes.uint16BigEndian(at: headerLength + 2)) * 4
    }
    guard headerLength <= wireLength else { return .failure(.headerLength) }
    var padding = 0
    if first & 0x20 != 0, bytes.count == wireLength {
      padding = Int(bytes.byte(at: wireLength - 1))
      guard padding >= 1, padding <= wireLength - headerLength else { return .failure(.padding) }
    }
    return .success(
      RTPHeader(
        marker: second & 0x80 != 0,
        payloadType: second & 0x7F,
        sequenceNumber: bytes.uint16BigEndian(at: 2),
        timestamp: bytes.uint32BigEndian(at: 4),
        ssrc: bytes.uint32BigEndian(at: 8),
        headerLength: headerLength,
        payloadLength: wireLength - headerLength - padding,
        padded: first & 0x20 != 0))
  }
}
