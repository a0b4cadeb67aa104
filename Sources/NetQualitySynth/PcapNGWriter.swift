import NetQualityCore

/// Writes pcapng files (draft-ietf-opsawg-pcapng) into a byte buffer: a section header, one
/// interface, enhanced packet blocks, and any raw block in between. pcapng stores 64-bit
/// timestamps, so tests make captures stamped at the ends of time with it (classic pcap's
/// 32-bit seconds cannot say more than 2106).
public struct PcapNGWriter {
  /// The interface's timestamp unit (`if_tsresol`, section 4.2).
  public enum Resolution: Sendable {
    case microseconds
    case nanoseconds
  }

  public private(set) var bytes: [UInt8] = []

  public init(linkType: LinkType = .ethernet, resolution: Resolution = .microseconds) {
    // Section Header Block: byte-order magic, version 1.0, section length unknown (-1).
    var header: [UInt8] = []
    header.appendLittle(UInt32(0x1A2B_3C4D))
    header.appendLittle(UInt16(1))
    header.appendLittle(UInt16(0))
    header.appendLittle(UInt64.max)
    appendBlock(type: 0x0A0D_0D0A, body: header)
    // Interface Description Block: link type, reserved, snap length, options.
    var interface: [UInt8] = []
    interface.appendLittle(UInt16(PcapWriter.dataLinkType(linkType)))
    interface.appendLittle(UInt16(0))
    interface.appendLittle(UInt32(262_144))
    if resolution == .nanoseconds {
      // if_tsresol (code 9, length 1): 10^-9 s, padded to 32 bits; then opt_endofopt.
      interface.appendLittle(UInt16(9))
      interface.appendLittle(UInt16(1))
      interface += [9, 0, 0, 0]
      interface.appendLittle(UInt32(0))
    }
    appendBlock(type: 1, body: interface)
  }

  /// An Enhanced Packet Block stamped `units` of the interface's resolution since the epoch.
  public mutating func appendPacket(_ frame: [UInt8], units: UInt64) {
    var body: [UInt8] = []
    body.appendLittle(UInt32(0))  // interface id
    body.appendLittle(UInt32(truncatingIfNeeded: units >> 32))
    body.appendLittle(UInt32(truncatingIfNeeded: units))
    body.appendLittle(UInt32(frame.count))
    body.appendLittle(UInt32(frame.count))
    body += frame
    while body.count % 4 != 0 { body.append(0) }
    appendBlock(type: 6, body: body)
  }

  /// Any block, as raw type and body (an unknown block type, for readers to skip).
  public mutating func appendBlock(type: UInt32, body: [UInt8]) {
    let length = UInt32(12 + body.count)
    bytes.appendLittle(type)
    bytes.appendLittle(length)
    bytes += body
    bytes.appendLittle(length)
  }
}

extension Array where Element == UInt8 {
  fileprivate mutating func appendLittle<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
  }
}
