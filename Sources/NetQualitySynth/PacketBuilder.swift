import NetQualityCore

/// Builds RTP and RTCP payloads and wraps them in UDP, IPv4/IPv6 and a link layer, so tests,
/// the sample generator and the benchmark can make exactly the traffic they need.
public enum PacketBuilder {
  /// An RTP packet (RFC 3550 section 5.1) with a payload of `payloadLength` bytes.
  public static func rtp(
    payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
    marker: Bool = false, payloadLength: Int = 160, csrcCount: Int = 0,
    extensionWords: Int? = nil, padding: Int = 0, version: UInt8 = 2
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(12 + payloadLength + padding)
    let first =
      version << 6 | (padding > 0 ? 0x20 : 0) | (extensionWords != nil ? 0x10 : 0)
      | UInt8(csrcCount & 0x0F)
    bytes.append(first)
    bytes.append((marker ? 0x80 : 0) | (payloadType & 0x7F))
    bytes.appendBigEndian(sequenceNumber)
    bytes.appendBigEndian(timestamp)
    bytes.appendBigEndian(ssrc)
    for index in 0..<csrcCount { bytes.appendBigEndian(UInt32(0x1000 + index)) }
    if let words = extensionWords {
      bytes.appendBigEndian(UInt16(0xBEDE))
      bytes.appendBigEndian(UInt16(words))
      bytes.append(contentsOf: repeatElement(0, count: words * 4))
    }
    bytes.append(contentsOf: repeatElement(0xD5, count: payloadLength))
    if padding > 0 {
      bytes.append(contentsOf: repeatElement(0, count: padding - 1))
      bytes.append(UInt8(padding))
    }
    return bytes
  }

  /// A UDP datagram in IPv4 or IPv6 (by the addresses' family) in the given link layer.
  public static func frame(
    linkType: LinkType = .ethernet, source: Endpoint, destination: Endpoint, payload: [UInt8],
    vlanTags: [UInt16] = [], udpLengthOverride: Int? = nil, ipTotalLengthOverride: Int? = nil,
    fragmentOffsetWords: UInt16 = 0, moreFragments: Bool = false
  ) -> [UInt8] {
    let udpLength = udpLengthOverride ?? (8 + payload.count)
    var udp: [UInt8] = []
    udp.appendBigEndian(source.port)
    udp.appendBigEndian(destination.port)
    udp.appendBigEndian(UInt16(truncatingIfNeeded: udpLength))
    udp.appendBigEndian(UInt16(0))  // checksum: optional over IPv4, not checked by the decoder
    udp.append(contentsOf: payload)

    var ip: [UInt8] = []
    let isIPv4 = source.address.isIPv4
    if isIPv4 {
      let total = ipTotalLengthOverride ?? (20 + udp.count)
      ip.append(0x45)
      ip.append(0)
      ip.appendBigEndian(UInt16(truncatingIfNeeded: total))
      ip.appendBigEndian(UInt16(0x1234))
      ip.appendBigEndian((moreFragments ? 0x2000 : 0) | fragmentOffsetWords & 0x1FFF)
      ip.append(64)
      ip.append(17)
      ip.appendBigEndian(UInt16(0))
      ip.appendBigEndian(source.address.ipv4Value ?? 0)
      ip.appendBigEndian(destination.address.ipv4Value ?? 0)
    } else {
      ip.appendBigEndian(UInt32(0x6000_0000))
      ip.appendBigEndian(UInt16(truncatingIfNeeded: ipTotalLengthOverride ?? udp.count))
      ip.append(17)
      ip.append(64)
      ip.append(contentsOf: source.address.bytes)
      ip.append(contentsOf: destination.address.bytes)
    }
    ip.append(contentsOf: udp)

    let etherType: UInt16 = isIPv4 ? 0x0800 : 0x86DD
    var frame: [UInt8] = []
    switch linkType {
    case .ethernet:
      frame.append(contentsOf: [0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01])
      for tag in vlanTags {
        frame.appendBigEndian(UInt16(0x8100))
        frame.appendBigEndian(tag)
      }
      frame.appendBigEndian(etherType)
    case .linuxCooked:
      frame.appendBigEndian(UInt16(0))  // packet type: to us
      frame.appendBigEndian(UInt16(1))  // ARPHRD_ETHER
      frame.appendBigEndian(UInt16(6))
      frame.append(contentsOf: [0x02, 0, 0, 0, 0, 0x01, 0, 0])
      frame.appendBigEndian(etherType)
    case .linuxCookedV2:
      frame.appendBigEndian(etherType)
      frame.appendBigEndian(UInt16(0))
      frame.appendBigEndian(UInt32(2))  // interface index
      frame.appendBigEndian(UInt16(1))  // ARPHRD_ETHER
      frame.append(0)
      frame.append(6)
      frame.append(contentsOf: [0x02, 0, 0, 0, 0, 0x01, 0, 0])
    case .null:
      // Host byte order (little-endian here), as BSD loopback captures store it.
      let family: UInt32 = isIPv4 ? 2 : 30
      frame.append(contentsOf: withUnsafeBytes(of: family.littleEndian, Array.init))
    case .loop:
      frame.appendBigEndian(UInt32(isIPv4 ? 2 : 24))
    case .raw, .ipv4, .ipv6:
      break
    }
    frame.append(contentsOf: ip)
    return frame
  }
}

extension Array where Element == UInt8 {
  public mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
  }
}
