/// TURN Send and Data indications (RFC 8656 sections 10 and 11): STUN messages that carry
/// application data in a DATA attribute before a channel is bound.
public enum STUNIndication {
  /// RFC 5389 section 6: the magic cookie in every STUN message.
  static let magicCookie: UInt32 = 0x2112_A442
  /// RFC 8656 section 18: Send indication 0x0016, Data indication 0x0017.
  static let sendIndication: UInt16 = 0x0016
  static let dataIndication: UInt16 = 0x0017
  /// RFC 8656 section 18: the DATA attribute.
  static let dataAttribute: UInt16 = 0x0013
  static let headerLength = 20

  /// Offset and length of the DATA attribute's value in a Send or Data indication, nil for any
  /// other STUN message or a malformed one.
  public static func applicationData(in message: UnsafeRawBufferPointer) -> (
    offset: Int, length: Int
  )? {
    guard message.count >= headerLength, message.uint32BigEndian(at: 4) == magicCookie else {
      return nil
    }
    let type = message.uint16BigEndian(at: 0)
    guard type == sendIndication || type == dataIndication else { return nil }
    let end = min(message.count, headerLength + Int(message.uint16BigEndian(at: 2)))
    var offset = headerLength
    // Attributes: type(16) length(16) value, padded to 4 bytes (RFC 5389 section 15).
    while offset + 4 <= end {
      let attribute = message.uint16BigEndian(at: offset)
      let length = Int(message.uint16BigEndian(at: offset + 2))
      guard offset + 4 + length <= end else { return nil }
      if attribute == dataAttribute { return (offset + 4, length) }
      offset += 4 + (length + 3) & ~3
    }
    return nil
  }
}
