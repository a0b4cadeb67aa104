import NetQualityCore

/// A Session-Sender test packet (RFC 8762 section 4.2): what a sender sends and a reflector
/// reads. Layouts: section 4.2.1 (unauthenticated, 44-octet base) and 4.2.2 (authenticated,
/// 112-octet base); see `STAMPLayout`. Octets past the base packet are padding (section 4.2.1
/// lets the sender pad, for symmetric sizes) and are ignored on receipt, as are MBZ octets.
public struct STAMPSenderPacket: STAMPPacket {
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

  public static func layout(_ mode: STAMPMode) -> STAMPLayout {
    STAMPLayout.sender(mode)
  }

  // MARK: Decode

  /// Reads a packet of `mode` (see `STAMPPacket`): its head is all it has.
  public init(decoding bytes: UnsafeRawBufferPointer, mode: STAMPMode) throws(STAMPCodecError) {
    let head = try Self.head(of: bytes, mode: mode)
    self.init(
      sequenceNumber: head.sequenceNumber, timestamp: head.timestamp,
      errorEstimate: head.errorEstimate)
  }

  // MARK: Encode

  /// Writes the packet (see `STAMPPacket`).
  @discardableResult
  public func encode(
    into buffer: UnsafeMutableRawBufferPointer, totalLength: Int, key: STAMPKey?
  ) throws(STAMPCodecError) -> Int {
    _ = try encodeHead(
      into: buffer, totalLength: totalLength, mode: key == nil ? .unauthenticated : .authenticated)
    key?.sign(buffer)
    return totalLength
  }
}
