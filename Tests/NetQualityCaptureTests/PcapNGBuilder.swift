import NetQualitySynth

/// Minimal pcapng (draft-ietf-opsawg-pcapng) writer for tests: section header, one interface,
/// enhanced packet blocks, and any raw block in between.
struct PcapNGBuilder {
  private(set) var bytes: [UInt8] = []

  init(linkType: UInt16 = 1) {
    // Section Header Block: type, length, byte-order magic, version 1.0, section length -1.
    var body: [UInt8] = []
    body.appendLittle(UInt32(0x1A2B_3C4D))
    body.appendLittle(UInt16(1))
    body.appendLittle(UInt16(0))
    body.appendLittle(UInt64.max)
    appendBlock(type: 0x0A0D_0D0A, body: body)
    // Interface Description Block: link type, reserved, snap length; no options (microseconds).
    var interface: [UInt8] = []
    interface.appendLittle(linkType)
    interface.appendLittle(UInt16(0))
    interface.appendLittle(UInt32(262_144))
    appendBlock(type: 1, body: interface)
  }

  mutating func appendPacket(_ frame: [UInt8], microseconds: UInt64) {
    var body: [UInt8] = []
    body.appendLittle(UInt32(0))  // interface id
    body.appendLittle(UInt32(truncatingIfNeeded: microseconds >> 32))
    body.appendLittle(UInt32(truncatingIfNeeded: microseconds))
    body.appendLittle(UInt32(frame.count))
    body.appendLittle(UInt32(frame.count))
    body += frame
    while body.count % 4 != 0 { body.append(0) }
    appendBlock(type: 6, body: body)
  }

  mutating func appendBlock(type: UInt32, body: [UInt8]) {
    let length = UInt32(12 + body.count)
    bytes.appendLittle(type)
    bytes.appendLittle(length)
    bytes += body
    bytes.appendLittle(length)
  }
}

extension Array where Element == UInt8 {
  mutating func appendLittle<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
  }
}
