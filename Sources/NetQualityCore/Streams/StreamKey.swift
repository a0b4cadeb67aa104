/// The identity of one RTP stream: (source, destination, SSRC), the key Wireshark's RTP
/// statistics use, so results compare stream by stream.
public struct StreamKey: Hashable, Sendable {
  public var source: Endpoint
  public var destination: Endpoint
  public var ssrc: UInt32

  public init(source: Endpoint, destination: Endpoint, ssrc: UInt32) {
    self.source = source
    self.destination = destination
    self.ssrc = ssrc
  }

  /// A cheap, well-mixed hash for the engine's own open-addressing table: one multiply and
  /// xor-shift per word (the finaliser of MurmurHash3's 64-bit variant).
  @inline(__always)
  var tableHash: UInt64 {
    var hash = source.address.low &* 0x9E37_79B9_7F4A_7C15
    hash ^= destination.address.low &+ (hash >> 29)
    hash = (hash ^ source.address.high ^ (destination.address.high << 1)) &* 0xBF58_476D_1CE4_E5B9
    hash ^= UInt64(source.port) << 48 | UInt64(destination.port) << 32 | UInt64(ssrc)
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
