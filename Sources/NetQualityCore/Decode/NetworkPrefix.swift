/// An address prefix such as `10.0.0.0/8` or `2001:db8::/32`, used for `--local` and the
/// `local_networks` setting.
public struct NetworkPrefix: Hashable, Sendable, CustomStringConvertible {
  public let address: IPAddress
  /// Prefix length in bits of the 128-bit (IPv4-mapped) form.
  public let lengthBits128: Int

  /// Parses `ADDRESS/LENGTH` or a bare address (a host prefix).
  public init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let address = IPAddress(parts[0]) else { return nil }
    let familyBits = address.isIPv4 ? 32 : 128
    var length = familyBits
    if parts.count == 2 {
      guard let parsed = Int(parts[1]), (0...familyBits).contains(parsed) else { return nil }
      length = parsed
    }
    self.lengthBits128 = length + (128 - familyBits)
    self.address = NetworkPrefix.masked(address, lengthBits128: lengthBits128)
  }

  /// The prefix of one address.
  public init(address: IPAddress) {
    self.address = address
    lengthBits128 = 128
  }

  public func contains(_ candidate: IPAddress) -> Bool {
    NetworkPrefix.masked(candidate, lengthBits128: lengthBits128) == address
  }

  public var description: String {
    let familyLength = address.isIPv4 ? lengthBits128 - 96 : lengthBits128
    return "\(address)/\(familyLength)"
  }

  private static func masked(_ address: IPAddress, lengthBits128 length: Int) -> IPAddress {
    func mask(_ bits: Int) -> UInt64 {
      bits <= 0 ? 0 : bits >= 64 ? UInt64.max : ~(UInt64.max >> UInt64(bits))
    }
    return IPAddress(high: address.high & mask(length), low: address.low & mask(length - 64))
  }
}
