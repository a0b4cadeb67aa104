import NetQualityCore

/// A Session-Sender test packet (RFC 8762 section 4.2): what a sender sends and a reflector
/// reads. Layouts: section 4.2.1 (unauthenticated, 44-octet base) and 4.2.2 (authenticated,
/// 112-octet base); see `STAMPLayout`. Octets past the base packet are padding (section 4.2.1
/// lets the sender pad, for symmetric sizes) and are ignored on receipt, as are MBZ octets.
public struct STAMPSenderPacket: Hashable, Sendable {
  /// The sender's sequence number, counting from 0 per session (section 4.2.1).
  public var sequenceNumber: UInt32
  /// T1, the time the packet was sent, in the format its error estimate's Z flag names.
  public var timestamp: STAMPTimestamp
  public var errorEstimate: STAMPErrorEstimate

  public init(
    sequenceNumber: UInt32, timestamp: STAMPTimestamp, errorEstimate: STAMPErrorEstimate
  ) {
    self.sequenceNumber = sequenceNumber
    self.timestamp = timestamp
    self.errorEstimate = errorEstimate
  }

  /// The base packet length of `mode`: 44 unauthenticated, 112 authenticated.
  public static func baseLength(_ mode: STAMPMode) -> Int {
    STAMPLayout.sender(mode).baseLength
  }

  // MARK: Decode

  /// Reads a packet of `mode` from a UDP payload. Throws `tooShort` for a payload shorter than
  /// the base packet; never traps. Authenticated mode reads the fields only: check the HMAC
  /// with `STAMPKey.isValidHMAC(of:)` (or use `init(decoding:key:)`).
  public init(decoding bytes: UnsafeRawBufferPointer, mode: STAMPMode) throws(STAMPCodecError) {
    let layout = STAMPLayout.sender(mode)
    guard bytes.count >= layout.baseLength else {
      throw .tooShort(length: bytes.count, minimumLength: layout.baseLength)
    }
    sequenceNumber = bytes.uint32BigEndian(at: layout.sequenceNumber)
    timestamp = STAMPTimestamp(rawValue: bytes.uint64BigEndian(at: layout.timestamp))
    errorEstimate = STAMPErrorEstimate(rawValue: bytes.uint16BigEndian(at: layout.errorEstimate))
  }

  /// Reads an authenticated packet and checks its HMAC with `key` (throws `badHMAC`).
  public init(decoding bytes: UnsafeRawBufferPointer, key: STAMPKey) throws(STAMPCodecError) {
    try self.init(decoding: bytes, mode: .authenticated)
    guard key.isValidHMAC(of: bytes) else { throw .badHMAC }
  }

  /// Reads a packet of `mode` from bytes (see the buffer form).
  public init(decoding bytes: [UInt8], mode: STAMPMode) throws(STAMPCodecError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(STAMPCodecError) in try STAMPSenderPacket(decoding: buffer, mode: mode) }
    }
    self = try result.get()
  }

  /// Reads an authenticated packet from bytes and checks its HMAC (see the buffer form).
  public init(decoding bytes: [UInt8], key: STAMPKey) throws(STAMPCodecError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(STAMPCodecError) in try STAMPSenderPacket(decoding: buffer, key: key) }
    }
    self = try result.get()
  }

  // MARK: Encode

  /// Writes the packet into `buffer[0 ..< totalLength]`: the fields, zeros in every MBZ and
  /// padding octet, and with a `key` the authenticated layout and its HMAC (without one, the
  /// unauthenticated layout). Allocates nothing. Returns `totalLength`.
  @discardableResult
  public func encode(
    into buffer: UnsafeMutableRawBufferPointer, totalLength: Int, key: STAMPKey?
  ) throws(STAMPCodecError) -> Int {
    let layout = STAMPLayout.sender(key == nil ? .unauthenticated : .authenticated)
    try STAMPLayout.checkEncode(buffer, totalLength: totalLength, layout: layout)
    buffer.zero(from: 0, count: totalLength)
    buffer.storeBigEndian(sequenceNumber, at: layout.sequenceNumber)
    buffer.storeBigEndian(timestamp.rawValue, at: layout.timestamp)
    buffer.storeBigEndian(errorEstimate.rawValue, at: layout.errorEstimate)
    key?.sign(buffer)
    return totalLength
  }

  /// The packet as a new array of `totalLength` bytes (the base length when nil): for tests
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

  /// Rewrites the Timestamp of an encoded packet (and its HMAC with a `key`) in place: the
  /// sender encodes everything ahead, then stamps T1 as late as possible before the send
  /// (RFC 8762 section 4.2.1). The buffer must hold a base packet of the key's mode.
  public static func stamp(
    _ timestamp: STAMPTimestamp, into buffer: UnsafeMutableRawBufferPointer, key: STAMPKey?
  ) throws(STAMPCodecError) {
    let layout = STAMPLayout.sender(key == nil ? .unauthenticated : .authenticated)
    guard buffer.count >= layout.baseLength else {
      throw .tooShort(length: buffer.count, minimumLength: layout.baseLength)
    }
    buffer.storeBigEndian(timestamp.rawValue, at: layout.timestamp)
    key?.sign(buffer)
  }
}
