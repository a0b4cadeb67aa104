import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class RTPHeaderTests: XCTestCase {
  private func parse(_ bytes: [UInt8], wireLength: Int? = nil) -> Result<
    RTPHeader, RTPHeader.ParseError
  > {
    bytes.withUnsafeBytes { RTPHeader.parse($0, wireLength: wireLength ?? $0.count) }
  }

  func testFieldsAndSizes() throws {
    let bytes = PacketBuilder.rtp(
      payloadType: 96, sequenceNumber: 65_535, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304,
      marker: true, payloadLength: 100, csrcCount: 2, extensionWords: 3, padding: 4)
    let header = try parse(bytes).get()
    XCTAssertTrue(header.marker)
    XCTAssertEqual(header.payloadType, 96)
    XCTAssertEqual(header.sequenceNumber, 65_535)
    XCTAssertEqual(header.timestamp, 0xDEAD_BEEF)
    XCTAssertEqual(header.ssrc, 0x0102_0304)
    XCTAssertEqual(header.headerLength, 12 + 8 + 4 + 12)
    XCTAssertEqual(header.payloadLength, 100)
  }

  func testVersionOneIsRejected() {
    XCTAssertEqual(
      parse(
        PacketBuilder.rtp(payloadType: 0, sequenceNumber: 1, timestamp: 1, ssrc: 1, version: 1)),
      .failure(.version))
  }

  func testExtensionPastTheEndIsRejected() {
    var bytes = PacketBuilder.rtp(
      payloadType: 0, sequenceNumber: 1, timestamp: 1, ssrc: 1, payloadLength: 8, extensionWords: 1)
    bytes[15] = 200
    XCTAssertEqual(parse(bytes), .failure(.headerLength))
  }

  func testImpossiblePaddingIsRejected() {
    var bytes = PacketBuilder.rtp(
      payloadType: 0, sequenceNumber: 1, timestamp: 1, ssrc: 1, payloadLength: 8, padding: 4)
    bytes[bytes.count - 1] = 0
    XCTAssertEqual(parse(bytes), .failure(.padding))
    bytes[bytes.count - 1] = 100
    XCTAssertEqual(parse(bytes), .failure(.padding))
  }

  func testTruncatedCaptureStillGivesTheHeader() throws {
    let bytes = PacketBuilder.rtp(
      payloadType: 8, sequenceNumber: 7, timestamp: 1, ssrc: 1, payloadLength: 160)
    let header = try parse(Array(bytes[0..<40]), wireLength: bytes.count).get()
    XCTAssertEqual(header.sequenceNumber, 7)
    XCTAssertEqual(header.payloadLength, 160)
  }
}
