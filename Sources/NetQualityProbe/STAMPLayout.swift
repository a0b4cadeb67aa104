/// Where each field of a STAMP test packet sits: byte offsets from the start of the UDP payload,
/// read off the figures of RFC 8762 (every field big-endian). Authenticated layouts spread the
/// fields over 16-octet blocks with MBZ (must be zero) octets between them and end the base
/// packet with a 16-octet HMAC over everything before it.
public struct STAMPLayout: Sendable, Hashable {
  public internal(set) var sequenceNumber: Int
  public internal(set) var timestamp: Int
  public internal(set) var errorEstimate: Int
  /// Reflector layouts only (-1 in the sender's).
  public internal(set) var receiveTimestamp = -1
  public internal(set) var senderSequenceNumber = -1
  public internal(set) var senderTimestamp = -1
  public internal(set) var senderErrorEstimate = -1
  public internal(set) var senderTTL = -1
  /// Authenticated layouts only: the HMAC field, which covers octets 0 ..< hmac.
  public internal(set) var hmac: Int?
  /// The base packet: the shortest a packet of this layout can be. Anything after it is
  /// padding (section 4.2.1) or extensions this codec does not read.
  public internal(set) var baseLength: Int

  /// Section 4.2.1, Figure 2: Sequence Number 0-3, Timestamp 4-11, Error Estimate 12-13,
  /// MBZ 14-43 (30 octets).
  public static let senderUnauthenticated = STAMPLayout(
    sequenceNumber: 0, timestamp: 4, errorEstimate: 12, baseLength: 44)

  /// Section 4.2.2, Figure 3: Sequence Number 0-3, MBZ 4-15 (12 octets), Timestamp 16-23,
  /// Error Estimate 24-25, MBZ 26-95 (70 octets), HMAC 96-111.
  public static let senderAuthenticated = STAMPLayout(
    sequenceNumber: 0, timestamp: 16, errorEstimate: 24, hmac: 96, baseLength: 112)

  /// Section 4.3.1, Figure 4: Sequence Number 0-3, Timestamp 4-11, Error Estimate 12-13,
  /// MBZ 14-15, Receive Timestamp 16-23, Session-Sender Sequence Number 24-27, Session-Sender
  /// Timestamp 28-35, Session-Sender Error Estimate 36-37, MBZ 38-39, Ses-Sender TTL 40,
  /// MBZ 41-43: 44 octets, the size of the sender's base packet (symmetric by design).
  public static let reflectorUnauthenticated = STAMPLayout(
    sequenceNumber: 0, timestamp: 4, errorEstimate: 12, receiveTimestamp: 16,
    senderSequenceNumber: 24, senderTimestamp: 28, senderErrorEstimate: 36, senderTTL: 40,
    baseLength: 44)

  /// Section 4.3.2, Figure 5: Sequence Number 0-3, MBZ 4-15, Timestamp 16-23, Error Estimate
  /// 24-25, MBZ 26-31, Receive Timestamp 32-39, MBZ 40-47, Session-Sender Sequence Number
  /// 48-51, MBZ 52-63, Session-Sender Timestamp 64-71, Session-Sender Error Estimate 72-73,
  /// MBZ 74-79, Ses-Sender TTL 80, MBZ 81-95, HMAC 96-111: 112 octets like the sender's.
  public static let reflectorAuthenticated = STAMPLayout(
    sequenceNumber: 0, timestamp: 16, errorEstimate: 24, receiveTimestamp: 32,
    senderSequenceNumber: 48, senderTimestamp: 64, senderErrorEstimate: 72, senderTTL: 80,
    hmac: 96, baseLength: 112)

  public static func sender(_ mode: STAMPMode) -> STAMPLayout {
    mode == .authenticated ? senderAuthenticated : senderUnauthenticated
  }

  public static func reflector(_ mode: STAMPMode) -> STAMPLayout {
    mode == .authenticated ? reflectorAuthenticated : reflectorUnauthenticated
  }
}

extension STAMPLayout {
  /// Throws `tooShort` unless `length` bytes hold the base packet.
  func checkHolds(_ length: Int) throws(STAMPCodecError) {
    guard length >= baseLength else {
      throw .tooShort(length: length, minimumLength: baseLength)
    }
  }

  /// The checks every encoder makes before writing.
  static func checkEncode(
    _ buffer: UnsafeMutableRawBufferPointer, totalLength: Int, layout: STAMPLayout
  ) throws(STAMPCodecError) {
    guard totalLength >= layout.baseLength else {
      throw .lengthBelowBase(requestedLength: totalLength, baseLength: layout.baseLength)
    }
    guard buffer.count >= totalLength else {
      throw .bufferTooSmall(capacity: buffer.count, neededLength: totalLength)
    }
  }
}
