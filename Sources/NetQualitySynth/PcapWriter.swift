import NetQualityCore

/// Writes classic pcap files (https://www.tcpdump.org/manpages/pcap-savefile.5.html) into a
/// byte buffer: tests make good and deliberately broken captures with it, and the sample and
/// benchmark generators stream it to disk.
public struct PcapWriter {
  /// Magic numbers: microsecond and nanosecond resolution.
  static let magicMicroseconds: UInt32 = 0xA1B2_C3D4
  static let magicNanoseconds: UInt32 = 0xA1B2_3C4D

  public private(set) var bytes: [UInt8] = []
  public let nanosecondResolution: Bool

  /// libpcap numbers of the link types the builder produces.
  public static func dataLinkType(_ linkType: LinkType) -> UInt32 {
    switch linkType {
    case .null: 0
    case .ethernet: 1
    case .raw: 101
    case .loop: 108
    case .linuxCooked: 113
    case .linuxCookedV2: 276
    case .ipv4: 228
    case .ipv6: 229
    }
  }

  public init(
    linkType: LinkType = .ethernet, snapLength: UInt32 = 262_144, nanosecondResolution: Bool = false
  ) {
    self.nanosecondResolution = nanosecondResolution
    appendLittleEndian(nanosecondResolution ? Self.magicNanoseconds : Self.magicMicroseconds)
    appendLittleEndian(UInt16(2))
    appendLittleEndian(UInt16(4))
    appendLittleEndian(UInt32(0))  // thiszone
    appendLittleEndian(UInt32(0))  // sigfigs
    appendLittleEndian(snapLength)
    appendLittleEndian(Self.dataLinkType(linkType))
  }

  /// Appends one record. `capturedLength` below the frame's size simulates a snap length;
  /// `originalLength` defaults to the frame's size.
  public mutating func append(
    _ frame: [UInt8], at time: CaptureTime, capturedLength: Int? = nil, originalLength: Int? = nil
  ) {
    let nanoseconds = time.nanosecondsSinceEpoch
    let fraction = nanoseconds % 1_000_000_000
    append(
      frame, seconds: UInt32(truncatingIfNeeded: nanoseconds / 1_000_000_000),
      fraction: UInt32(nanosecondResolution ? fraction : fraction / 1000),
      capturedLength: capturedLength, originalLength: originalLength)
  }

  /// Appends one record with its header's time fields as given: seconds are unsigned 32-bit
  /// (to 2106), `fraction` micro- or nanoseconds as the file's resolution says, and either may
  /// be what no clock gives (a sub-second field of a second or more).
  public mutating func append(
    _ frame: [UInt8], seconds: UInt32, fraction: UInt32, capturedLength: Int? = nil,
    originalLength: Int? = nil
  ) {
    let captured = min(capturedLength ?? frame.count, frame.count)
    appendLittleEndian(seconds)
    appendLittleEndian(fraction)
    appendLittleEndian(UInt32(captured))
    appendLittleEndian(UInt32(originalLength ?? frame.count))
    bytes.append(contentsOf: frame[0..<captured])
  }

  /// Appends raw bytes (a record header that lies, a torn record).
  public mutating func appendRaw(_ raw: [UInt8]) {
    bytes.append(contentsOf: raw)
  }

  /// Hands out what was written so far and empties the buffer (the header stays written).
  public mutating func drain() -> [UInt8] {
    defer { bytes.removeAll(keepingCapacity: true) }
    return bytes
  }

  public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
