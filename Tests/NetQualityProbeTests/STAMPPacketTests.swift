import NetQualityCore
import XCTest

@testable import NetQualityProbe

final class STAMPPacketTests: XCTestCase {
  typealias F = STAMPFixtures

  // HMAC-SHA-256 of octets 0-95, first 16 bytes, key 00 01 … 0f, computed independently with
  //   python3 -c 'import hmac,hashlib; print(hmac.new(bytes(range(16)), MSG,
  //     hashlib.sha256).hexdigest()[:32])'
  // where MSG is the 96 bytes laid out in each test below.
  let senderHMAC: [UInt8] = [
    0xa9, 0x54, 0x58, 0xd5, 0x60, 0xce, 0x99, 0xf1, 0x91, 0x9d, 0x56, 0x81, 0x82, 0x93, 0xe1, 0x37,
  ]
  let reflectorHMAC: [UInt8] = [
    0xab, 0x0e, 0xbf, 0xae, 0x0b, 0x29, 0x3e, 0x5c, 0xfd, 0x68, 0xbb, 0x3c, 0xda, 0x6d, 0x3f, 0x7e,
  ]

  /// RFC 8762 section 4.2.1, Figure 2.
  var senderUnauthenticatedBytes: [UInt8] {
    F.sequenceBytes  // 0-3 Sequence Number
      + F.timestampBytes  // 4-11 Timestamp
      + [0x8A, 0x7B]  // 12-13 Error Estimate
      + F.zeros(30)  // 14-43 MBZ
  }

  /// RFC 8762 section 4.2.2, Figure 3.
  var senderAuthenticatedBytes: [UInt8] {
    F.sequenceBytes  // 0-3 Sequence Number
      + F.zeros(12)  // 4-15 MBZ
      + F.timestampBytes  // 16-23 Timestamp
      + [0x8A, 0x7B]  // 24-25 Error Estimate
      + F.zeros(70)  // 26-95 MBZ
      + senderHMAC  // 96-111 HMAC
  }

  /// RFC 8762 section 4.3.1, Figure 4.
  var reflectorUnauthenticatedBytes: [UInt8] {
    [0xA1, 0xA2, 0xA3, 0xA4]  // 0-3 Sequence Number
      + [0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8]  // 4-11 Timestamp
      + [0x43, 0x20]  // 12-13 Error Estimate
      + F.zeros(2)  // 14-15 MBZ
      + [0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8]  // 16-23 Receive Timestamp
      + F.sequenceBytes  // 24-27 Session-Sender Sequence Number
      + F.timestampBytes  // 28-35 Session-Sender Timestamp
      + [0x8A, 0x7B]  // 36-37 Session-Sender Error Estimate
      + F.zeros(2)  // 38-39 MBZ
      + [0x40]  // 40 Ses-Sender TTL
      + F.zeros(3)  // 41-43 MBZ
  }

  /// RFC 8762 section 4.3.2, Figure 5.
  var reflectorAuthenticatedBytes: [UInt8] {
    [0xA1, 0xA2, 0xA3, 0xA4]  // 0-3 Sequence Number
      + F.zeros(12)  // 4-15 MBZ
      + [0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8]  // 16-23 Timestamp
      + [0x43, 0x20]  // 24-25 Error Estimate
      + F.zeros(6)  // 26-31 MBZ
      + [0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8]  // 32-39 Receive Timestamp
      + F.zeros(8)  // 40-47 MBZ
      + F.sequenceBytes  // 48-51 Session-Sender Sequence Number
      + F.zeros(12)  // 52-63 MBZ
      + F.timestampBytes  // 64-71 Session-Sender Timestamp
      + [0x8A, 0x7B]  // 72-73 Session-Sender Error Estimate
      + F.zeros(6)  // 74-79 MBZ
      + [0x40]  // 80 Ses-Sender TTL
      + F.zeros(15)  // 81-95 MBZ
      + reflectorHMAC  // 96-111 HMAC
  }

  func testBaseLengthsFollowTheRFC() {
    XCTAssertEqual(STAMPSenderPacket.baseLength(.unauthenticated), 44)
    XCTAssertEqual(STAMPSenderPacket.baseLength(.authenticated), 112)
    XCTAssertEqual(STAMPReflectorPacket.baseLength(.unauthenticated), 44)
    XCTAssertEqual(STAMPReflectorPacket.baseLength(.authenticated), 112)
  }

  // MARK: Encode, byte for byte

  func testSenderUnauthenticatedEncodesAsFigure2() throws {
    XCTAssertEqual(try F.sender.encoded(key: nil), senderUnauthenticatedBytes)
  }

  func testSenderAuthenticatedEncodesAsFigure3() throws {
    XCTAssertEqual(senderAuthenticatedBytes.count, 112)
    XCTAssertEqual(try F.sender.encoded(key: F.key), senderAuthenticatedBytes)
  }

  func testReflectorUnauthenticatedEncodesAsFigure4() throws {
    XCTAssertEqual(reflectorUnauthenticatedBytes.count, 44)
    XCTAssertEqual(try F.reflector.encoded(key: nil), reflectorUnauthenticatedBytes)
  }

  func testReflectorAuthenticatedEncodesAsFigure5() throws {
    XCTAssertEqual(reflectorAuthenticatedBytes.count, 112)
    XCTAssertEqual(try F.reflector.encoded(key: F.key), reflectorAuthenticatedBytes)
  }

  func testPaddingIsZeroAndOutsideTheHMAC() throws {
    XCTAssertEqual(
      try F.sender.encoded(totalLength: 60, key: nil), senderUnauthenticatedBytes + F.zeros(16))
    // The HMAC covers octets 0-95 only, so padding after 112 leaves it unchanged.
    XCTAssertEqual(
      try F.reflector.encoded(totalLength: 200, key: F.key),
      reflectorAuthenticatedBytes + F.zeros(88))
  }

  func testEncodeOverwritesWhateverTheBufferHeld() throws {
    var buffer = [UInt8](repeating: 0xEE, count: 80)
    let length = try buffer.withUnsafeMutableBytes { bytes in
      try F.sender.encode(into: bytes, totalLength: 50, key: nil)
    }
    XCTAssertEqual(length, 50)
    XCTAssertEqual(Array(buffer[0..<50]), senderUnauthenticatedBytes + F.zeros(6))
    XCTAssertEqual(Array(buffer[50...]), [UInt8](repeating: 0xEE, count: 30))
  }

  func testEncodeRefusesLengthsBelowBaseAndSmallBuffers() throws {
    XCTAssertThrowsError(try F.sender.encoded(totalLength: 43, key: nil)) { error in
      XCTAssertEqual(
        error as? STAMPCodecError, .lengthBelowBase(requestedLength: 43, baseLength: 44))
    }
    XCTAssertThrowsError(try F.reflector.encoded(totalLength: 100, key: F.key)) { error in
      XCTAssertEqual(
        error as? STAMPCodecError, .lengthBelowBase(requestedLength: 100, baseLength: 112))
    }
    var small = [UInt8](repeating: 0, count: 40)
    try small.withUnsafeMutableBytes { bytes in
      XCTAssertThrowsError(try F.sender.encode(into: bytes, totalLength: 44, key: nil)) {
        XCTAssertEqual($0 as? STAMPCodecError, .bufferTooSmall(capacity: 40, neededLength: 44))
      }
    }
  }

  // MARK: Decode

  func testEachLayoutDecodesToItsFields() throws {
    XCTAssertEqual(
      try STAMPSenderPacket(decoding: senderUnauthenticatedBytes, mode: .unauthenticated),
      F.sender)
    XCTAssertEqual(
      try STAMPSenderPacket(decoding: senderAuthenticatedBytes, mode: .authenticated), F.sender)
    XCTAssertEqual(try STAMPSenderPacket(decoding: senderAuthenticatedBytes, key: F.key), F.sender)
    XCTAssertEqual(
      try STAMPReflectorPacket(decoding: reflectorUnauthenticatedBytes, mode: .unauthenticated),
      F.reflector)
    XCTAssertEqual(
      try STAMPReflectorPacket(decoding: reflectorAuthenticatedBytes, key: F.key), F.reflector)
  }

  func testPaddingAndMBZContentAreIgnoredOnReceipt() throws {
    // RFC 8972 puts an SSID and TLVs where RFC 8762 has MBZ and padding: still readable.
    var bytes = senderUnauthenticatedBytes + [UInt8](repeating: 0x5A, count: 20)
    bytes[14] = 0xAB
    bytes[15] = 0xCD
    XCTAssertEqual(try STAMPSenderPacket(decoding: bytes, mode: .unauthenticated), F.sender)
  }

  func testShortPacketsThrowTooShort() {
    for length in [0, 1, 43] {
      XCTAssertThrowsError(
        try STAMPSenderPacket(decoding: F.zeros(length), mode: .unauthenticated)
      ) { XCTAssertEqual($0 as? STAMPCodecError, .tooShort(length: length, minimumLength: 44)) }
      XCTAssertThrowsError(
        try STAMPReflectorPacket(decoding: F.zeros(length), mode: .unauthenticated)
      ) { XCTAssertEqual($0 as? STAMPCodecError, .tooShort(length: length, minimumLength: 44)) }
    }
    XCTAssertThrowsError(try STAMPSenderPacket(decoding: senderUnauthenticatedBytes, key: F.key)) {
      XCTAssertEqual($0 as? STAMPCodecError, .tooShort(length: 44, minimumLength: 112))
    }
    XCTAssertThrowsError(
      try STAMPReflectorPacket(decoding: F.zeros(111), mode: .authenticated)
    ) { XCTAssertEqual($0 as? STAMPCodecError, .tooShort(length: 111, minimumLength: 112)) }
  }

  func testGarbageDecodesWithoutTrapping() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let length = Int.random(in: 0...160, using: &generator)
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      for mode in [STAMPMode.unauthenticated, .authenticated] {
        _ = try? STAMPSenderPacket(decoding: bytes, mode: mode)
        _ = try? STAMPReflectorPacket(decoding: bytes, mode: mode)
      }
      XCTAssertThrowsError(try STAMPSenderPacket(decoding: bytes, key: F.key))
    }
  }

  func testStampRewritesTheTimestampAndTheHMAC() throws {
    var buffer = try F.reflector.encoded(totalLength: 120, key: F.key)
    let later = STAMPTimestamp(rawValue: 0x0102_0304_0506_0708)
    try buffer.withUnsafeMutableBytes { bytes in
      try STAMPReflectorPacket.stamp(later, into: bytes, key: F.key)
    }
    var expected = F.reflector
    expected.timestamp = later
    XCTAssertEqual(buffer, try expected.encoded(totalLength: 120, key: F.key))
    XCTAssertEqual(try STAMPReflectorPacket(decoding: buffer, key: F.key), expected)

    var sent = try F.sender.encoded(key: nil)
    try sent.withUnsafeMutableBytes { bytes in
      try STAMPSenderPacket.stamp(later, into: bytes, key: nil)
    }
    XCTAssertEqual(Array(sent[4..<12]), [1, 2, 3, 4, 5, 6, 7, 8])
  }
}
