/// The fixed header of a STUN message (RFC 8489 section 5) and the attributes the engine reads:
/// enough to pair ICE connectivity and consent checks (RFC 8445, RFC 7675) by transaction, and
/// to see a TURN allocation released (RFC 8656 section 7: a Refresh with LIFETIME 0).
public struct STUNMessage: Sendable, Equatable {
  public enum Class: Sendable, Equatable {
    case request
    case indication
    case successResponse
    case errorResponse
  }

  /// RFC 8489 section 18.2: Binding; RFC 8656 section 18: Refresh.
  static let bindingMethod: UInt16 = 0x001
  static let refreshMethod: UInt16 = 0x004
  /// RFC 8656 section 18: the LIFETIME attribute (seconds).
  static let lifetimeAttribute: UInt16 = 0x000D
  /// RFC 8489 section 14.3: USERNAME.
  static let usernameAttribute: UInt16 = 0x0006
  static let headerLength = 20

  public var method: UInt16
  public var messageClass: Class
  /// The 96-bit transaction ID (RFC 8489 section 5), as two words.
  public var transactionHigh: UInt64
  public var transactionLow: UInt32
  /// The LIFETIME attribute's value, when the message has one.
  public var lifetimeSeconds: UInt32?
  /// A Binding request's USERNAME as ICE writes it, `remote-ufrag:local-ufrag` (RFC 8445
  /// section 7.2.2), hashed so that both ends' checks give the same value: one ICE session.
  /// nil without a USERNAME of that form.
  public var iceSessionHash: UInt64?

  public var isBinding: Bool { method == Self.bindingMethod }
  /// A TURN client releasing its allocation (RFC 8656 section 7.2: "a Refresh request with a
  /// requested lifetime of 0").
  public var releasesAllocation: Bool {
    method == Self.refreshMethod && messageClass == .request && lifetimeSeconds == 0
  }

  /// Parses a STUN message; nil when the magic cookie or the length is wrong (RFC 8489 section
  /// 5: the two top bits are 0, the length is a multiple of 4 and the cookie is 0x2112A442).
  public init?(_ message: UnsafeRawBufferPointer) {
    guard message.count >= Self.headerLength,
      message.uint32BigEndian(at: 4) == STUNIndication.magicCookie
    else { return nil }
    let type = message.uint16BigEndian(at: 0)
    let length = Int(message.uint16BigEndian(at: 2))
    guard type & 0xC000 == 0, length % 4 == 0 else { return nil }
    // Method bits M0..M11 around the class bits C0 (bit 4) and C1 (bit 8).
    method = (type & 0x000F) | (type & 0x00E0) >> 1 | (type & 0x3E00) >> 2
    switch (type & 0x0100 != 0, type & 0x0010 != 0) {
    case (false, false): messageClass = .request
    case (false, true): messageClass = .indication
    case (true, false): messageClass = .successResponse
    case (true, true): messageClass = .errorResponse
    }
    transactionHigh = message.uint64BigEndian(at: 8)
    transactionLow = message.uint32BigEndian(at: 16)
    lifetimeSeconds = nil
    iceSessionHash = nil
    let readsUsername = method == Self.bindingMethod && messageClass == .request
    guard method == Self.refreshMethod || readsUsername else { return }
    // Attributes: type, length, value padded to 4 bytes (RFC 8489 section 14).
    let end = min(message.count, Self.headerLength + length)
    var offset = Self.headerLength
    while offset + 4 <= end {
      let attribute = message.uint16BigEndian(at: offset)
      let valueLength = Int(message.uint16BigEndian(at: offset + 2))
      guard offset + 4 + valueLength <= end else { return }
      if attribute == Self.lifetimeAttribute && valueLength == 4 && !readsUsername {
        lifetimeSeconds = message.uint32BigEndian(at: offset + 4)
        return
      }
      if attribute == Self.usernameAttribute && readsUsername {
        iceSessionHash = Self.sessionHash(message.window(from: offset + 4, count: valueLength))
        return
      }
      offset += 4 + (valueLength + 3) & ~3
    }
  }

  /// The two ufrags of an ICE USERNAME hashed (FNV-1a, 64 bits) each, combined in order of
  /// value: `a:b` and `b:a` give the same. nil without exactly one colon between two
  /// non-empty parts.
  static func sessionHash(_ username: UnsafeRawBufferPointer) -> UInt64? {
    var hashes: (UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0xcbf2_9ce4_8422_2325)
    var part = 0
    var lengths = (0, 0)
    for index in 0..<username.count {
      let byte = username.byte(at: index)
      if byte == UInt8(ascii: ":") {
        guard part == 0 else { return nil }
        part = 1
        continue
      }
      if part == 0 {
        hashes.0 = (hashes.0 ^ UInt64(byte)) &* 0x100_0000_01b3
        lengths.0 += 1
      } else {
        hashes.1 = (hashes.1 ^ UInt64(byte)) &* 0x100_0000_01b3
        lengths.1 += 1
      }
    }
    guard part == 1, lengths.0 > 0, lengths.1 > 0 else { return nil }
    let (low, high) = hashes.0 < hashes.1 ? hashes : (hashes.1, hashes.0)
    return (low &* 0x9E37_79B9_7F4A_7C15) ^ high
  }
}
