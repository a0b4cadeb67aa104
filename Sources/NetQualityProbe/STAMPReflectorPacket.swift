import NetQualityCore

/// A Session-Reflector test packet (RFC 8762 section 4.3): the reflector's reply, carrying its
/// own sequence number and timestamps and a copy of the sender's. Layouts: section 4.3.1
/// (unauthenticated, 44-octet base) and 4.3.2 (authenticated, 112-octet base); see
/// `STAMPLayout`. Each base is the size of the sender's base packet of the same mode, so a
/// reply can always be exactly as long as its request.
public struct STAMPReflectorPacket: Hashable, Sendable {
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

  /// The base packet length of `mode`: 44 unauthenticated, 112 authenticated.
  public static func baseLength(_ mode: STAMPMode) -> Int {
    STAMPLayout.reflector(mode).baseLength
  }

  // MARK: Decode

  /// Reads a reply of `mode` from a UDP payload. Throws `tooShort` for a payload shorter than
  /// the base packet; never traps. Authenticated mode reads the fields only: check the HMAC
  /// with `STAMPKey.isValidHMAC(of:)` (or use `init(decoding:key:)`).
  public init(decoding bytes: UnsafeRawBufferPointer, mode: STAMPMode) throws(STAMPCodecError) {
    let layout = STAMPLayout.reflector(mode)
    guard bytes.count >= layout.baseLength else {
      throw .tooShort(length: bytes.count, minimumLength: layout.baseLength)
    }
    sequenceNumber = bytes.uint32BigEndian(at: layout.sequenceNumber)
    timestamp = STAMPTimestamp(rawValue: bytes.uint64BigEndian(at: layout.timestamp))
    errorEstimate = STAMPErrorEstimate(rawValue: bytes.uint16BigEndian(at: layout.errorEstimate))
    receiveTimestamp = STAMPTimestamp(
      rawValue: bytes.uint64BigEndian(at: layout.receiveTimestamp))
    senderSequenceNumber = bytes.uint32BigEndian(at: layout.senderSequenceNumber)
    senderTimestamp = STAMPTimestamp(rawValue: bytes.uint64BigEndian(at: layout.senderTimestamp))
    senderErrorEstimate = STAMPErrorEstimate(
      rawValue: bytes.uint16BigEndian(at: layout.senderErrorEstimate))
    senderTTL = bytes.byte(at: layout.senderTTL)
  }

  /// Reads an authenticated reply and checks its HMAC with `key` (throws `badHMAC`).
  public init(decoding bytes: UnsafeRawBufferPointer, key: STAMPKey) throws(STAMPCodecError) {
    try self.init(decoding: bytes, mode: .authenticated)
    guard key.isValidHMAC(of: bytes) else { throw .badHMAC }
  }

  /// Reads a reply of `mode` from bytes (see the buffer form).
  public init(decoding bytes: [UInt8], mode: STAMPMode) throws(STAMPCodecError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(STAMPCodecError) in try STAMPReflectorPacket(decoding: buffer, mode: mode)
      }
    }
    self = try result.get()
  }

  /// Reads an authenticated reply from bytes and checks its HMAC (see the buffer form).
  public init(decoding bytes: [UInt8], key: STAMPKey) throws(STAMPCodecError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(STAMPCodecError) in try STAMPReflectorPacket(decoding: buffer, key: key) }
    }
    self = try result.get()
  }

  // MARK: Encode

  /// Writes the reply into `buffer[0 ..< totalLength]`: the fields, zeros in every MBZ and
  /// padding octet, and with a `key` the authenticated layout and its HMAC (without one, the
  /// unauthenticated layout). Allocates nothing. Returns `totalLength`.
  ///
  /// A reflector passes the request's length as `totalLength`: never more (RFC 8762 section
  /// 4.3 keeps sizes symmetric; a larger reply would amplify).
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
    let layout = STAMPLayout.reflector(mode)
    try STAMPLayout.checkEncode(buffer, totalLength: totalLength, layout: layout)
    buffer.zero(from: 0, count: totalLength)
    buffer.storeBigEndian(sequenceNumber, at: layout.sequenceNumber)
    buffer.storeBigEndian(timestamp.rawValue, at: layout.timestamp)
    buffer.storeBigEndian(errorEstimate.rawValue, at: layout.errorEstimate)
    buffer.storeBigEndian(receiveTimestamp.rawValue, at: layout.receiveTimestamp)
    buffer.storeBigEndian(senderSequenceNumber, at: layout.senderSequenceNumber)
    buffer.storeBigEndian(senderTimestamp.rawValue, at: layout.senderTimestamp)
    buffer.storeBigEndian(senderErrorEstimate.rawValue, at: layout.senderErrorEstimate)
    buffer[layout.senderTTL] = senderTTL
  }

  /// The reply as a new array of `totalLength` bytes (the base length when nil): for tests
  /// and set-up, not the per-packet path.
  public func encoded(totalLength: Int? = nil, key: STAMPKey?) throws(STAMPCodecError)
    -> [UInt8]
  {
    let length = totalLength ?? Self.baseLength(key == nil ? .unauthenticated : .authenticated)
    var bytes = [UInt8](repeating: 0, count: max(0, length))
    let result = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(STAMPCodecError) in try encode(into: buffer, totalLength: length, key: key)
      }
    }
    _ = try result.get()
    return bytes
  }

  /// Rewrites the Timestamp (T3) of an encoded reply, and its HMAC with a `key`, in place: the
  /// reflector builds the reply ahead and stamps it as late as possible before the send (RFC
  /// 8762 section 4.3.1). The buffer must hold a base packet of the key's mode.
  public static func stamp(
    _ timestamp: STAMPTimestamp, into buffer: UnsafeMutableRawBufferPointer, key: STAMPKey?
  ) throws(STAMPCodecError) {
    let layout = STAMPLayout.reflector(key == nil ? .unauthenticated : .authenticated)
    guard buffer.count >= layout.baseLength else {
      throw .tooShort(length: buffer.count, minimumLength: layout.baseLength)
    }
    buffer.storeBigEndian(timestamp.rawValue, at: layout.timestamp)
    key?.sign(buffer)
  }
}
