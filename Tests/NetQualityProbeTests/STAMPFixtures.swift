import NetQualityCore

@testable import NetQualityProbe

/// Packets and keys shared by the codec, policy and socket tests.
enum STAMPFixtures {
  /// 16 bytes 0x00 ... 0x0f.
  static let keyBytes: [UInt8] = Array(0..<16)
  static let key: STAMPKey = {
    guard let key = STAMPKey(name: "test", bytes: keyBytes) else {
      preconditionFailure("a 16-byte key is long enough")
    }
    return key
  }()

  /// S=1, Z=0 (NTP), Scale 0x0A, Multiplier 0x7B.
  static let senderEstimate = STAMPErrorEstimate(rawValue: 0x8A7B)
  /// S=0, Z=1 (PTP), Scale 3, Multiplier 0x20.
  static let reflectorEstimate = STAMPErrorEstimate(rawValue: 0x4320)

  static let sender = STAMPSenderPacket(
    sequenceNumber: 0x0102_0304, timestamp: STAMPTimestamp(rawValue: 0x1122_3344_5566_7788),
    errorEstimate: senderEstimate)

  static let reflector = STAMPReflectorPacket(
    sequenceNumber: 0xA1A2_A3A4, timestamp: STAMPTimestamp(rawValue: 0xB1B2_B3B4_B5B6_B7B8),
    errorEstimate: reflectorEstimate,
    receiveTimestamp: STAMPTimestamp(rawValue: 0xC1C2_C3C4_C5C6_C7C8),
    senderSequenceNumber: 0x0102_0304,
    senderTimestamp: STAMPTimestamp(rawValue: 0x1122_3344_5566_7788),
    senderErrorEstimate: senderEstimate, senderTTL: 0x40)

  static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

  static let sequenceBytes: [UInt8] = [0x01, 0x02, 0x03, 0x04]
  static let timestampBytes: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
}
