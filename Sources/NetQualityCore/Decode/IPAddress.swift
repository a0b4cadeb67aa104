/// An IPv4 or IPv6 address in 16 bytes, IPv4 stored as an IPv4-mapped IPv6 address
/// (RFC 4291 section 2.5.5.2), so one key type serves both families without a tag.
public struct IPAddress: Hashable, Sendable, Comparable {
  /// The first 8 bytes, network order folded into a big-endian integer.
  public var high: UInt64
  /// The last 8 bytes, same convention.
  public var low: UInt64

  /// The `::ffff:0:0/96` prefix of IPv4-mapped addresses: high word 0, low word 0xffff << 32.
  static let ipv4MappedMarker: UInt64 = 0x0000_FFFF_0000_0000

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  public init(ipv4 value: UInt32) {
    high = 0
    low = IPAddress.ipv4MappedMarker | UInt64(value)
  }

  public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
    self.init(ipv4: UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d))
  }

  public var isIPv4: Bool { high == 0 && low & 0xFFFF_FFFF_0000_0000 == IPAddress.ipv4MappedMarker }

  /// The IPv4 address as a 32-bit integer, when this is one.
  public var ipv4Value: UInt32? { isIPv4 ? UInt32(truncatingIfNeeded: low) : nil }

  public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }

  /// The sixteen bytes in network order.
  public var bytes: [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
      + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
  }
}

extension IPAddress: CustomStringConvertible {
  /// Dotted quad for IPv4; RFC 5952 text (lower case, longest zero run compressed) for IPv6.
  public var description: String {
    if let v4 = ipv4Value {
      return "\(v4 >> 24).\((v4 >> 16) & 0xFF).\((v4 >> 8) & 0xFF).\(v4 & 0xFF)"
    }
    let groups: [UInt16] = (0..<8).map { index in
      let word = index < 4 ? high : low
      return UInt16(truncatingIfNeeded: word >> (48 - 16 * (index % 4)))
    }
    // RFC 5952 section 4.2: compress the longest run of two or more zero groups, the first one
    // on a tie.
    var bestStart = -1
    var bestLength = 1
    var index = 0
    while index < 8 {
      guard groups[index] == 0 else {
        index += 1
        continue
      }
      var end = index
      while end < 8 && groups[end] == 0 { end += 1 }
      if end - index > bestLength {
        bestStart = index
        bestLength = end - index
      }
      index = end
    }
    func hex(_ range: Range<Int>) -> String {
      groups[range].map { String($0, radix: 16) }.joined(separator: ":")
    }
    guard bestStart >= 0 else { return hex(0..<8) }
    return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
  }
}

extension IPAddress {
  /// Parses dotted-quad IPv4 or RFC 4291 section 2.2 IPv6 text (with `::` and an embedded
  /// IPv4 tail). Returns nil for anything else.
  public init?(_ text: some StringProtocol) {
    if !text.contains(":") {
      guard let value = IPAddress.parseIPv4(text) else { return nil }
      self.init(ipv4: value)
      return
    }
    guard let groups = IPAddress.parseIPv6Groups(text) else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for (index, group) in groups.enumerated() {
      if index < 4 {
        high = high << 16 | UInt64(group)
      } else {
        low = low << 16 | UInt64(group)
      }
    }
    self.init(high: high, low: low)
  }

  private static func parseIPv4(_ text: some StringProtocol) -> UInt32? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var value: UInt32 = 0
    for part in parts {
      guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII),
        let octet = UInt8(part)
      else { return nil }
      value = value << 8 | UInt32(octet)
    }
    return value
  }

  private static func parseIPv6Groups(_ text: some StringProtocol) -> [UInt16]? {
    let characters = Array(text)
    var halves: [String] = []
    var current = ""
    var index = 0
    while index < characters.count {
      if characters[index] == ":" && index + 1 < characters.count && characters[index + 1] == ":" {
        halves.append(current)
        current = ""
        index += 2
      } else {
        current.append(characters[index])
        index += 1
      }
    }
    halves.append(current)
    guard halves.count <= 2 else { return nil }
    func groups(_ part: String) -> [UInt16]? {
      if part.isEmpty { return [] }
      var result: [UInt16] = []
      let fields = part.split(separator: ":", omittingEmptySubsequences: false)
      for (index, field) in fields.enumerated() {
        if index == fields.count - 1, field.contains(".") {
          guard let v4 = parseIPv4(field) else { return nil }
          result.append(UInt16(v4 >> 16))
          result.append(UInt16(v4 & 0xFFFF))
        } else {
          guard (1...4).contains(field.count), let group = UInt16(field, radix: 16) else {
            return nil
          }
          result.append(group)
        }
      }
      return result
    }
    guard let head = groups(halves[0]) else { return nil }
    if halves.count == 1 {
      return head.count == 8 ? head : nil
    }
    guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
    return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
  }
}
