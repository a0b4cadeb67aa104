import NetQualityCore

/// A Session-Reflector test packet (RFC 8762 section 4.3): the reflector's reply, carrying its
/// own sequence number and timestamps and a copy of the sender's. Layouts: section 4.3.1
/// (unauthenticated, 44-octet base) and 4.3.2 (authenticated, 112-octet base); see
/// `STAMPLayout`. Each base is the size of the sender's base packet of the same mode, so a
/// reply can always be exactly as long as its request.
public struct STAMPReflectorPacket: STAMPPacket {
  /// The reflector's sequence number: its own per-session counter in stateful mode, a copy of
  /// the sender's in stateless mode (section 4.3).
  public var sequenceNumber: UInt32
  /// T3, the time the reply was sent.
  public var timestamp: STAMPTimestamp
  public var errorEstimate: STAMPErrorEstimate
  /// T2, the time the request was received.
  public var receiveTimestamp: STAMPTimestamp
  /// Copies of the request's fields (section 4.3.1).
  public var senderSequenceNumber: UInt32
  public var senderTimestamp: STAMPTimestamp
  public var senderErrorEstimate: STAMPErrorEstimate
  /// The TTL (IPv4) or Hop Limit (IPv6) the request arrived with (section 4.3.1), 255 when the
  /// reflector could not read it.
  public var senderTTL: UInt8

  public init(
    sequenceNumber: UInt32, timestamp: STAMPTimestamp, errorEstimate: STAMPErrorEstimate,
    receiveTimestamp: STAMPTimestamp, senderSequenceNumber: UInt32,
    senderTimestamp: STAMPTimestamp, senderErrorEstimate: STAMPErrorEstimate, senderTTL: UInt8
  ) {
    self.sequenceNumber = sequenceNumber
    self.timestamp = timestamp
    self.errorEstimate = errorEstimate
    self.receiveTimestamp = receiveTimestamp
    self.senderSequenceNumber = senderSequenceNumber
    self.senderTimestamp = senderTimestamp
    self.senderErrorEstimate = senderErrorEstimate
    self.senderTTL = senderTTL
  }

  // MARK: Decode

  /// Reads a reply of `mode` (see `STAMPPacket`): its head, then the reflector's fields.
  public init(decoding bytes: UnsafeRawBufferPointer, mode: STAMPMode) throws(STAMPCodecError) {
    let head = try Self.head(of: bytes, mode: mode)
    let layout = head.layout
    sequenceNumber = head.sequenceNumber
    timestamp = head.timestamp
    errorEstimate = head.errorEstimate
    receiveTimestamp = STAMPTimestamp(
      rawValue: bytes.uint64BigEndian(at: layout.receiveTimestamp))
    senderSequenceNumber = bytes.uint32BigEndian(at: layout.senderSequenceNumber)
    senderTimestamp = STAMPTimestamp(rawValue: bytes.uint64BigEndian(at: layout.senderTimestamp))
    senderErrorEstimate = STAMPErrorEstimate(
      rawValue: bytes.uint16BigEndian(at: layout.senderErrorEstimate))
    senderTTL = bytes.byte(at: layout.senderTTL)
  }

  // MARK: Encode

  /// Writes the reply (see `STAMPPacket`). A reflector passes the request's length as
  /// `totalLength`: never more (RFC 8762 section 4.3 keeps sizes symmetric; a larger reply
  /// would amplify).
  @discardableResult
  public func encode(
    into buffer: UnsafeMutableRawBufferPointer, totalLength: Int, key: STAMPKey?
  ) throws(STAMPCodecError) -> Int {
    try encodeUnsigned(
      into: buffer, totalLength: totalLength, mode: key == nil ? .unauthenticated : .authenticated)
    key?.sign(buffer)
    return totalLength
  }

  /// `encode` without the HMAC (left zero in authenticated mode): for a reply whose T3 and HMAC
  /// `stamp` writes just before the send, so the HMAC is computed once, over the final bytes.
  func encodeUnsigned(
    into buffer: UnsafeMutableRawBufferPointer, totalLength: Int, mode: STAMPMode
  ) throws(STAMPCodecError) {
    let layout = try encodeHead(into: buffer, totalLength: totalLength, mode: mode)
    buffer.storeBigEndian(receiveTimestamp.rawValue, at: layout.receiveTimestamp)
    buffer.storeBigEndian(senderSequenceNumber, at: layout.senderSequenceNumber)
    buffer.storeBigEndian(senderTimestamp.rawValue, at: layout.senderTimestamp)
    buffer.storeBigEndian(senderErrorEstimate.rawValue, at: layout.senderErrorEstimate)
    buffer[layout.senderTTL] = senderTTL
  }

  public static func layout(_ mode: STAMPMode) -> STAMPLayout {
    STAMPLayout.reflector(mode)
  }
}
