/// What the sender's and the reflector's test packets share: a layout per mode, decoding from
/// a buffer, encoding into one. The extension builds the rest on that once for both: array
/// forms, HMAC-checked decoding, base lengths and late timestamping.
public protocol STAMPPacket: Hashable, Sendable {
  /// Reads a packet of `mode` from a UDP payload. Throws `tooShort` for a payload shorter than
  /// the base packet; never traps. Authenticated mode reads the fields only: check the HMAC
  /// with `STAMPKey.isValidHMAC(of:)` (or use `init(decoding:key:)`).
  init(decoding bytes: UnsafeRawBufferPointer, mode: STAMPMode) throws(STAMPCodecError)

  /// Writes the packet into `buffer[0 ..< totalLength]`: the fields, zeros in every MBZ and
  /// padding octet, and with a `key` the authenticated layout and its HMAC (without one, the
  /// unauthenticated layout). Allocates nothing. Returns `totalLength`.
  @discardableResult
  func encode(into buffer: UnsafeMutableRawBufferPointer, totalLength: Int, key: STAMPKey?)
    throws(STAMPCodecError) -> Int

  /// Where the fields sit in `mode`.
  static func layout(_ mode: STAMPMode) -> STAMPLayout

  /// The fields both packets start with (RFC 8762 sections 4.2.1 and 4.3.1): the sequence
  /// number, the Timestamp (T1 of a sender's, T3 of a reflector's) and its error estimate.
  var sequenceNumber: UInt32 { get }
  var timestamp: STAMPTimestamp { get }
  var errorEstimate: STAMPErrorEstimate { get }
}

/// The fields a test packet starts with, read (`STAMPPacket.head(of:mode:)`), and the layout
/// of the mode they were read in, for the rest of the packet.
public struct STAMPPacketHead: Sendable {
  public var layout: STAMPLayout
  public var sequenceNumber: UInt32
  public var timestamp: STAMPTimestamp
  public var errorEstimate: STAMPErrorEstimate
}

extension STAMPPacket {
  /// Reads the fields every test packet starts with from `bytes`, once it holds the base
  /// packet of `mode` (throws `tooShort` otherwise): the first step of each decoder.
  static func head(of bytes: UnsafeRawBufferPointer, mode: STAMPMode) throws(STAMPCodecError)
    -> STAMPPacketHead
  {
    let layout = layout(mode)
    try layout.checkHolds(bytes.count)
    return STAMPPacketHead(
      layout: layout, sequenceNumber: bytes.uint32BigEndian(at: layout.sequenceNumber),
      timestamp: STAMPTimestamp(rawValue: bytes.uint64BigEndian(at: layout.timestamp)),
      errorEstimate: STAMPErrorEstimate(rawValue: bytes.uint16BigEndian(at: layout.errorEstimate)))
  }

  /// Starts writing the packet in `mode` into `buffer[0 ..< totalLength]`: checks the buffer,
  /// zeros it and writes the fields every test packet starts with; returns the layout for the
  /// rest (the first step of each encoder).
  func encodeHead(into buffer: UnsafeMutableRawBufferPointer, totalLength: Int, mode: STAMPMode)
    throws(STAMPCodecError) -> STAMPLayout
  {
    let layout = Self.layout(mode)
    try STAMPLayout.checkEncode(buffer, totalLength: totalLength, layout: layout)
    buffer.zero(from: 0, count: totalLength)
    buffer.storeBigEndian(sequenceNumber, at: layout.sequenceNumber)
    buffer.storeBigEndian(timestamp.rawValue, at: layout.timestamp)
    buffer.storeBigEndian(errorEstimate.rawValue, at: layout.errorEstimate)
    return layout
  }

  /// The base packet length of `mode`: 44 unauthenticated, 112 authenticated.
  public static func baseLength(_ mode: STAMPMode) -> Int {
    layout(mode).baseLength
  }

  /// Reads an authenticated packet and checks its HMAC with `key` (throws `badHMAC`).
  public init(decoding bytes: UnsafeRawBufferPointer, key: STAMPKey) throws(STAMPCodecError) {
    try self.init(decoding: bytes, mode: .authenticated)
    guard key.isValidHMAC(of: bytes) else { throw .badHMAC }
  }

  /// Reads a packet of `mode` from bytes (see the buffer form).
  public init(decoding bytes: [UInt8], mode: STAMPMode) throws(STAMPCodecError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(STAMPCodecError) in try Self(decoding: buffer, mode: mode) }
    }
    self = try result.get()
  }

  /// Reads an authenticated packet from bytes and checks its HMAC (see the buffer form).
  public init(decoding bytes: [UInt8], key: STAMPKey) throws(STAMPCodecError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(STAMPCodecError) in try Self(decoding: buffer, key: key) }
    }
    self = try result.get()
  }

  /// The packet as a new array of `totalLength` bytes (the base length when nil): for tests
  /// and set-up, not the per-packet path.
  public func encoded(totalLength: Int? = nil, key: STAMPKey?) throws(STAMPCodecError)
    -> [UInt8]
  {
    let length = totalLength ?? Self.baseLength(key == nil ? .unauthenticated : .authenticated)
    var bytes = [UInt8](repeating: 0, count: max(0, length))
    let result = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(STAMPCodecError) in
        try encode(into: buffer, totalLength: length, key: key)
      }
    }
    _ = try result.get()
    return bytes
  }

  /// Rewrites the Timestamp of an encoded packet (T1 of a sender's, T3 of a reflector's) and,
  /// with a `key`, its HMAC, in place: a packet is built ahead and stamped as late as possible
  /// before the send (RFC 8762 sections 4.2.1 and 4.3.1). The buffer must hold a base packet
  /// of the key's mode.
  public static func stamp(
    _ timestamp: STAMPTimestamp, into buffer: UnsafeMutableRawBufferPointer, key: STAMPKey?
  ) throws(STAMPCodecError) {
    let layout = layout(key == nil ? .unauthenticated : .authenticated)
    try layout.checkHolds(buffer.count)
    buffer.storeBigEndian(timestamp.rawValue, at: layout.timestamp)
    key?.sign(buffer)
  }
}
