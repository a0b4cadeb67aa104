import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class FrameDecoderTests: XCTestCase {
  private let payload: [UInt8] = Array(repeating: 0xAB, count: 20)

  private func decode(_ frame: [UInt8], _ linkType: LinkType, originalLength: Int? = nil)
    -> FrameDecodeResult
  {
    frame.withUnsafeBytes {
      FrameDecoder(linkType: linkType).decode($0, originalLength: originalLength ?? $0.count)
    }
  }

  private func assertUDP(
    _ result: FrameDecodeResult, source: Endpoint, destination: Endpoint,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    guard case .udp(let datagram) = result else {
      return XCTFail("expected UDP, got \(result)", file: file, line: line)
    }
    XCTAssertEqual(datagram.source, source, file: file, line: line)
    XCTAssertEqual(datagram.destination, destination, file: file, line: line)
    XCTAssertEqual(datagram.payloadLength, 20, file: file, line: line)
    XCTAssertEqual(datagram.capturedPayloadLength, 20, file: file, line: line)
  }

  func testEveryLinkTypeDecodesIPv4AndIPv6() {
    let v6a = Net.endpoint("2001:db8::1", 5004)
    let v6b = Net.endpoint("2001:db8::2", 6004)
    for linkType: LinkType in [.ethernet, .linuxCooked, .linuxCookedV2, .null, .loop, .raw] {
      assertUDP(
        decode(
          PacketBuilder.frame(
            linkType: linkType, source: Net.alice, destination: Net.bob, payload: payload), linkType
        ), source: Net.alice, destination: Net.bob)
      assertUDP(
        decode(
          PacketBuilder.frame(linkType: linkType, source: v6a, destination: v6b, payload: payload),
          linkType), source: v6a, destination: v6b)
    }
    assertUDP(
      decode(
        PacketBuilder.frame(
          linkType: .ipv4, source: Net.alice, destination: Net.bob, payload: payload), .ipv4),
      source: Net.alice, destination: Net.bob)
    assertUDP(
      decode(
        PacketBuilder.frame(linkType: .ipv6, source: v6a, destination: v6b, payload: payload), .ipv6
      ), source: v6a, destination: v6b)
  }

  func testVLANTagsAreSkipped() {
    let single = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, vlanTags: [100])
    assertUDP(decode(single, .ethernet), source: Net.alice, destination: Net.bob)
    var double = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, vlanTags: [100, 200])
    double[12] = 0x88  // outer tag as 802.1ad
    double[13] = 0xA8
    assertUDP(decode(double, .ethernet), source: Net.alice, destination: Net.bob)
  }

  func testIPv6ExtensionHeadersAreSkipped() {
    var frame = PacketBuilder.frame(
      linkType: .raw, source: Net.endpoint("2001:db8::1", 1),
      destination: Net.endpoint("2001:db8::2", 2), payload: payload)
    // Insert an 8-byte hop-by-hop header: next header UDP, length 0.
    frame[6] = 0
    frame.insert(contentsOf: [17, 0, 1, 4, 0, 0, 0, 0], at: 40)
    frame[5] = UInt8(frame.count - 40)
    guard case .udp(let datagram) = decode(frame, .raw) else { return XCTFail("expected UDP") }
    XCTAssertEqual(datagram.payloadOffset, 56)
    XCTAssertEqual(datagram.destinationPort, 2)
  }

  func testFragmentsAreReportedNotParsed() {
    let first = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, moreFragments: true)
    XCTAssertEqual(decode(first, .ethernet), .fragment)
    let later = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, fragmentOffsetWords: 185)
    XCTAssertEqual(decode(later, .ethernet), .fragment)
    var v6 = PacketBuilder.frame(
      linkType: .raw, source: Net.endpoint("2001:db8::1", 1),
      destination: Net.endpoint("2001:db8::2", 2), payload: payload)
    v6[6] = 44
    XCTAssertEqual(decode(v6, .raw), .fragment)
  }

  func testSnapLengthCutsAreTruncatedNotMalformed() {
    let frame = PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: payload)
    // Cut inside the IP header.
    XCTAssertEqual(decode(Array(frame[0..<20]), .ethernet, originalLength: frame.count), .truncated)
    // Cut inside the payload: headers still decode, the datagram says what was captured.
    guard
      case .udp(let datagram) = decode(Array(frame[0..<50]), .ethernet, originalLength: frame.count)
    else {
      return XCTFail("expected UDP")
    }
    XCTAssertEqual(datagram.payloadLength, 20)
    XCTAssertEqual(datagram.capturedPayloadLength, 8)
    XCTAssertTrue(datagram.isTruncated)
  }

  func testLyingLengthsAreMalformed() {
    let longUDP = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, udpLengthOverride: 500)
    XCTAssertEqual(decode(longUDP, .ethernet), .malformed(.udpLength))
    let shortUDP = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, udpLengthOverride: 4)
    XCTAssertEqual(decode(shortUDP, .ethernet), .malformed(.udpLength))
    let longIP = PacketBuilder.frame(
      source: Net.alice, destination: Net.bob, payload: payload, ipTotalLengthOverride: 1500)
    XCTAssertEqual(decode(longIP, .ethernet), .malformed(.ipLength))
    var badVersion = PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: payload)
    badVersion[14] = 0x35
    XCTAssertEqual(decode(badVersion, .ethernet), .malformed(.ipHeader))
    XCTAssertEqual(decode([0x01, 0x02], .ethernet), .malformed(.linkHeader))
  }

  func testEthernetPaddingBeyondTheIPLengthIsIgnored() {
    let frame =
      PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: payload) + [0, 0, 0, 0]
    assertUDP(decode(frame, .ethernet), source: Net.alice, destination: Net.bob)
  }

  func testNonIPAndNonUDPAreClassified() {
    var arp = PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: payload)
    arp[12] = 0x08
    arp[13] = 0x06
    XCTAssertEqual(decode(arp, .ethernet), .notIP)
    var tcp = PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: payload)
    tcp[23] = 6
    XCTAssertEqual(decode(tcp, .ethernet), .otherTransport)
  }
}
