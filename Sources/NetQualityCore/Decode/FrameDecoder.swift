/// Decodes link layer, IPv4/IPv6 and UDP headers of one captured frame in place.
///
/// `capturedLength` is what the capture holds, `originalLength` what was on the wire; when a
/// header or payload the decoder needs lies beyond the captured bytes but within the original
/// length, the frame is `.truncated` (snap length), otherwise a contradiction is `.malformed`.
public struct FrameDecoder: Sendable {
  public let linkType: LinkType

  public init(linkType: LinkType) {
    self.linkType = linkType
  }

  // EtherType values (IEEE 802 numbers registry).
  static let etherTypeIPv4: UInt16 = 0x0800
  static let etherTypeIPv6: UInt16 = 0x86DD
  static let etherTypeVLAN: UInt16 = 0x8100  // IEEE 802.1Q
  static let etherTypeQinQ: UInt16 = 0x88A8  // IEEE 802.1ad
  static let etherTypeQinQLegacy: UInt16 = 0x9100  // pre-standard double tagging
  static let ipProtocolUDP: UInt8 = 17
  static let ipProtocolTCP: UInt8 = 6

  /// Decodes a frame into a value (convenient for tests and tools).
  public func decode(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> FrameDecodeResult {
    var datagram = UDPDatagram()
    switch decode(frame, originalLength: originalLength, into: &datagram) {
    case .udp: return .udp(datagram)
    case .tcp(let sequence): return .tcp(datagram, sequence: sequence)
    case .otherTransport: return .otherTransport
    case .notIP: return .notIP
    case .fragment: return .fragment
    case .truncated: return .truncated
    case .malformed(let reason): return .malformed(reason)
    }
  }

  /// Decodes a frame, filling `datagram` in place when it is UDP: the per-packet form.
  @inline(__always)
  public func decode(
    _ frame: UnsafeRawBufferPointer, originalLength: Int, into datagram: inout UDPDatagram
  ) -> FrameDecodeStatus {
    let truncatedCapture = frame.count < originalLength
    guard let (networkOffset, etherType) = linkLayer(frame) else {
      return truncatedCapture ? .truncated : .malformed(.linkHeader)
    }
    // Lengths in headers are checked against what was on the wire, not what was captured.
    let wire = WireLimits(
      originalLength: max(originalLength, frame.count), truncated: truncatedCapture)
    switch etherType {
    case Self.etherTypeIPv4:
      return ipv4(frame, at: networkOffset, wire: wire, into: &datagram)
    case Self.etherTypeIPv6:
      return ipv6(frame, at: networkOffset, wire: wire, into: &datagram)
    default:
      return .notIP
    }
  }

  /// Returns the offset of the network header and its EtherType, skipping VLAN tags.
  @inline(__always)
  private func linkLayer(_ frame: UnsafeRawBufferPointer) -> (Int, UInt16)? {
    var offset: Int
    var etherType: UInt16
    switch linkType {
    case .ethernet:
      guard frame.count >= 14 else { return nil }
      offset = 14
      etherType = frame.uint16BigEndian(at: 12)
    case .linuxCooked:
      // Packet type(2) ARPHRD(2) address length(2) address(8) protocol(2).
      guard frame.count >= 16 else { return nil }
      offset = 16
      etherType = frame.uint16BigEndian(at: 14)
    case .linuxCookedV2:
      // Protocol(2) reserved(2) interface index(4) ARPHRD(2) packet type(1) address
      // length(1) address(8).
      guard frame.count >= 20 else { return nil }
      offset = 20
      etherType = frame.uint16BigEndian(at: 0)
    case .null, .loop:
      guard frame.count >= 4 else { return nil }
      let raw = frame.loadUnaligned(as: UInt32.self)
      // DLT_NULL stores the family in the capturing host's order: accept either order.
      let family = linkType == .loop ? UInt32(bigEndian: raw) : Self.smallerByteOrder(raw)
      offset = 4
      switch family {
      case 2: etherType = Self.etherTypeIPv4  // AF_INET everywhere
      case 10, 24, 28, 30: etherType = Self.etherTypeIPv6  // AF_INET6: Linux, BSDs, macOS
      default: return (4, 0)
      }
    case .raw:
      guard frame.count >= 1 else { return nil }
      offset = 0
      etherType = frame.byte(at: 0) >> 4 == 6 ? Self.etherTypeIPv6 : Self.etherTypeIPv4
    case .ipv4:
      return (0, Self.etherTypeIPv4)
    case .ipv6:
      return (0, Self.etherTypeIPv6)
    }
    while etherType == Self.etherTypeVLAN || etherType == Self.etherTypeQinQ
      || etherType == Self.etherTypeQinQLegacy
    {
      guard frame.count >= offset + 4 else { return nil }
      etherType = frame.uint16BigEndian(at: offset + 2)
      offset += 4
    }
    return (offset, etherType)
  }

  /// The frame's on-the-wire length and whether the capture cut it short.
  private struct WireLimits {
    var originalLength: Int
    var truncated: Bool
  }

  @inline(__always)
  private static func smallerByteOrder(_ raw: UInt32) -> UInt32 {
    min(raw, raw.byteSwapped)
  }

  @inline(__always)
  private func ipv4(
    _ frame: UnsafeRawBufferPointer, at offset: Int, wire: WireLimits,
    into datagram: inout UDPDatagram
  ) -> FrameDecodeStatus {
    guard frame.count >= offset + 20 else {
      return wire.truncated ? .truncated : .malformed(.ipHeader)
    }
    let versionAndLength = frame.byte(at: offset)
    let headerLength = Int(versionAndLength & 0x0F) * 4
    guard versionAndLength >> 4 == 4, headerLength >= 20 else { return .malformed(.ipHeader) }
    let totalLength = Int(frame.uint16BigEndian(at: offset + 2))
    guard totalLength >= headerLength, offset + totalLength <= wire.originalLength else {
      return .malformed(.ipLength)
    }
    // RFC 791: flags(3 bits) + fragment offset(13 bits); MF or a non-zero offset is a fragment.
    let fragmentField = frame.uint16BigEndian(at: offset + 6)
    if fragmentField & 0x3FFF != 0 { return .fragment }
    let transport = frame.byte(at: offset + 9)
    guard transport == Self.ipProtocolUDP else {
      guard transport == Self.ipProtocolTCP else { return .otherTransport }
      datagram.sourceAddress = IPAddress(ipv4: frame.uint32BigEndian(at: offset + 12))
      datagram.destinationAddress = IPAddress(ipv4: frame.uint32BigEndian(at: offset + 16))
      return tcp(
        frame, at: offset + headerLength, ipPayloadLength: totalLength - headerLength,
        into: &datagram)
    }
    datagram.sourceAddress = IPAddress(ipv4: frame.uint32BigEndian(at: offset + 12))
    datagram.destinationAddress = IPAddress(ipv4: frame.uint32BigEndian(at: offset + 16))
    return udp(
      frame, at: offset + headerLength, ipPayloadLength: totalLength - headerLength, wire: wire,
      into: &datagram)
  }

  @inline(__always)
  private func ipv6(
    _ frame: UnsafeRawBufferPointer, at offset: Int, wire: WireLimits,
    into datagram: inout UDPDatagram
  ) -> FrameDecodeStatus {
    guard frame.count >= offset + 40 else {
      return wire.truncated ? .truncated : .malformed(.ipHeader)
    }
    guard frame.byte(at: offset) >> 4 == 6 else { return .malformed(.ipHeader) }
    let payloadLength = Int(frame.uint16BigEndian(at: offset + 4))
    guard offset + 40 + payloadLength <= wire.originalLength else { return .malformed(.ipLength) }
    datagram.sourceAddress = IPAddress(
      high: frame.uint64BigEndian(at: offset + 8), low: frame.uint64BigEndian(at: offset + 16))
    datagram.destinationAddress = IPAddress(
      high: frame.uint64BigEndian(at: offset + 24), low: frame.uint64BigEndian(at: offset + 32))
    var nextHeader = frame.byte(at: offset + 6)
    var headerOffset = offset + 40
    var remaining = payloadLength
    // RFC 8200 section 4: walk the extension headers to the upper-layer header.
    while true {
      switch nextHeader {
      case Self.ipProtocolUDP:
        return udp(
          frame, at: headerOffset, ipPayloadLength: remaining, wire: wire, into: &datagram)
      case Self.ipProtocolTCP:
        return tcp(frame, at: headerOffset, ipPayloadLength: remaining, into: &datagram)
      case 44:  // Fragment header (RFC 8200 section 4.5).
        return .fragment
      case 0, 43, 60, 51:  // Hop-by-hop, routing, destination options, AH (RFC 4302).
        guard frame.count >= headerOffset + 2 else {
          return wire.truncated ? .truncated : .malformed(.ipHeader)
        }
        let lengthField = Int(frame.byte(at: headerOffset + 1))
        let length = nextHeader == 51 ? (lengthField + 2) * 4 : (lengthField + 1) * 8
        guard length <= remaining else { return .malformed(.ipLength) }
        nextHeader = frame.byte(at: headerOffset)
        headerOffset += length
        remaining -= length
      default:
        return .otherTransport
      }
    }
  }

  @inline(__always)
  private func udp(
    _ frame: UnsafeRawBufferPointer, at offset: Int, ipPayloadLength: Int, wire: WireLimits,
    into datagram: inout UDPDatagram
  ) -> FrameDecodeStatus {
    guard ipPayloadLength >= 8 else { return .malformed(.udpLength) }
    guard frame.count >= offset + 8 else {
      return wire.truncated ? .truncated : .malformed(.ipLength)
    }
    let udpLength = Int(frame.uint16BigEndian(at: offset + 4))
    // RFC 768: the length covers header and data, so it is at least 8 and fits the IP payload.
    guard udpLength >= 8, udpLength <= ipPayloadLength else { return .malformed(.udpLength) }
    datagram.sourcePort = frame.uint16BigEndian(at: offset)
    datagram.destinationPort = frame.uint16BigEndian(at: offset + 2)
    datagram.payloadOffset = offset + 8
    datagram.payloadLength = udpLength - 8
    // A snap length may cut the payload: the headers are still good, and the datagram says how
    // much of its payload was captured so nothing reads past it.
    datagram.capturedPayloadLength = min(udpLength - 8, frame.count - offset - 8)
    return .udp
  }

  /// A TCP segment (RFC 9293 section 3.1): ports, sequence number, and the payload after the
  /// header's data offset. Only SIP over TCP reads it: a header the capture cut, or one that
  /// contradicts its length, is other transport as before, never a decode error.
  private func tcp(
    _ frame: UnsafeRawBufferPointer, at offset: Int, ipPayloadLength: Int,
    into datagram: inout UDPDatagram
  ) -> FrameDecodeStatus {
    guard ipPayloadLength >= 20, frame.count >= offset + 20 else { return .otherTransport }
    let headerLength = Int(frame.byte(at: offset + 12) >> 4) * 4
    guard headerLength >= 20, headerLength <= ipPayloadLength else { return .otherTransport }
    datagram.sourcePort = frame.uint16BigEndian(at: offset)
    datagram.destinationPort = frame.uint16BigEndian(at: offset + 2)
    datagram.payloadOffset = offset + headerLength
    datagram.payloadLength = ipPayloadLength - headerLength
    datagram.capturedPayloadLength = max(
      0, min(datagram.payloadLength, frame.count - datagram.payloadOffset))
    return .tcp(sequence: frame.uint32BigEndian(at: offset + 4))
  }
}
