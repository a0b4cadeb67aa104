/// The identity of one RTP stream: (source, destination, SSRC), the key Wireshark's RTP
/// statistics use, so results compare stream by stream.
///
/// Stored as five 64-bit words (addresses, then ports and SSRC packed) so building, hashing and
/// comparing a key on the per-packet path are a few register operations.
public struct StreamKey: Hashable, Sendable {
  public let sourceAddress: IPAddress
  public let destinationAddress: IPAddress
  /// Source port in the high 16 bits, destination port in the next 16, SSRC in the low 32.
  let portsAndSSRC: UInt64

  public init(source: Endpoint, destination: Endpoint, ssrc: UInt32) {
    sourceAddress = source.address
    destinationAddress = destination.address
    portsAndSSRC = UInt64(source.port) << 48 | UInt64(destination.port) << 32 | UInt64(ssrc)
  }

  @inline(__always)
  public init(_ datagram: UDPDatagram, ssrc: UInt32) {
    sourceAddress = datagram.sourceAddress
    destinationAddress = datagram.destinationAddress
    portsAndSSRC =
      UInt64(datagram.sourcePort) << 48 | UInt64(datagram.destinationPort) << 32 | UInt64(ssrc)
  }

  public var ssrc: UInt32 { UInt32(truncatingIfNeeded: portsAndSSRC) }
  public var source: Endpoint {
    Endpoint(address: sourceAddress, port: UInt16(truncatingIfNeeded: portsAndSSRC >> 48))
  }
  public var destination: Endpoint {
    Endpoint(address: destinationAddress, port: UInt16(truncatingIfNeeded: portsAndSSRC >> 32))
  }

  /// A cheap, well-mixed hash for the engine's own open-addressing table: fold the words, then
  /// two multiply/xor-shift rounds (the constants of MurmurHash3's 64-bit finaliser).
  @inline(__always)
  var tableHash: UInt64 {
    var hash = sourceAddress.low ^ (destinationAddress.low << 32 | destinationAddress.low >> 32)
    hash ^= sourceAddress.high ^ destinationAddress.high ^ portsAndSSRC
    hash = (hash ^ (hash >> 33)) &* 0xFF51_AFD7_ED55_8CCD
    hash = (hash ^ (hash >> 33)) &* 0xC4CE_B9FE_1A85_EC53
    return hash ^ (hash >> 33)
  }
}

extension StreamKey: CustomStringConvertible {
  public var description: String {
    "\(source) -> \(destination) ssrc \(SSRCFormat.text(ssrc))"
  }
}

/// SSRCs are shown the way Wireshark shows them: `0x` and eight upper-case hex digits.
public enum SSRCFormat {
  public static func text(_ ssrc: UInt32) -> String {
    let hex = String(ssrc, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
  }
}
