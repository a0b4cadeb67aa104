/// The 16-bit Error Estimate of a STAMP timestamp: RFC 8762 section 4.2.1, which takes the
/// format of RFC 4656 section 4.1.2 and gives its second bit the Z flag.
///
/// ```
///  0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |S|Z|   Scale   |   Multiplier  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The estimate is `Multiplier × 2^-32 × 2^Scale` seconds. RFC 4656 says the Multiplier MUST
/// NOT be 0 (a receiver SHOULD treat such a packet as corrupt); decoding keeps whatever came,
/// and `isValid` says whether it obeys that rule.
public struct STAMPErrorEstimate: Hashable, Sendable {
  /// S: the clock that took the timestamp is synchronised to UTC by an external source.
  public var isSynchronized: Bool
  /// Z: the format of the timestamp this estimate goes with (RFC 8762 section 4.2.1).
  public var timestampFormat: STAMPTimestampFormat
  /// Scale, 6 bits (0 ... 63): the power of two the multiplier is scaled by.
  public var scale: UInt8
  /// Multiplier, 8 bits: the estimate in units of 2^(Scale − 32) s. Never 0 when valid.
  public var multiplier: UInt8

  /// The largest scale the 6-bit field holds.
  public static let maximumScale: UInt8 = 63

  /// A field from its parts; a scale above 63 is cut to its low 6 bits as on the wire.
  public init(
    isSynchronized: Bool, timestampFormat: STAMPTimestampFormat = .ntp, scale: UInt8,
    multiplier: UInt8
  ) {
    self.isSynchronized = isSynchronized
    self.timestampFormat = timestampFormat
    self.scale = scale & Self.maximumScale
    self.multiplier = multiplier
  }

  /// The field as read from the wire (host order).
  public init(rawValue: UInt16) {
    isSynchronized = rawValue & 0x8000 != 0
    timestampFormat = rawValue & 0x4000 != 0 ? .ptp : .ntp
    scale = UInt8(truncatingIfNeeded: rawValue >> 8) & Self.maximumScale
    multiplier = UInt8(truncatingIfNeeded: rawValue)
  }

  /// The field as it goes on the wire (host order).
  public var rawValue: UInt16 {
    (isSynchronized ? 0x8000 : 0) | (timestampFormat == .ptp ? 0x4000 : 0)
      | UInt16(scale & Self.maximumScale) << 8 | UInt16(multiplier)
  }

  /// The estimate in seconds: `Multiplier × 2^(Scale − 32)`.
  public var seconds: Double {
    Double(multiplier) * Double(sign: .plus, exponent: Int(scale) - 32, significand: 1)
  }

  /// RFC 4656 section 4.1.2: the Multiplier MUST NOT be 0.
  public var isValid: Bool { multiplier != 0 }

  /// The field that states `seconds` with the smallest scale whose multiplier fits in 8 bits,
  /// which is the finest step. The multiplier is rounded up, so the field never claims a
  /// smaller error than the one given, and is at least 1 (RFC 4656 forbids 0): 0 s or less
  /// gives the smallest estimate, 2^-32 s. An estimate beyond the largest the field can say
  /// (255 × 2^31 s), or NaN, gives that largest one.
  public init(
    seconds: Double, isSynchronized: Bool, timestampFormat: STAMPTimestampFormat = .ntp
  ) {
    self.isSynchronized = isSynchronized
    self.timestampFormat = timestampFormat
    // The estimate in units of 2^-32 s, the unit of a multiplier at scale 0.
    let units = seconds * Double(sign: .plus, exponent: 32, significand: 1)
    guard !units.isNaN else {
      scale = Self.maximumScale
      multiplier = .max
      return
    }
    for candidate in 0...Self.maximumScale {
      let needed = (units / Double(sign: .plus, exponent: Int(candidate), significand: 1))
        .rounded(.up)
      if needed <= Double(UInt8.max) {
        scale = candidate
        multiplier = UInt8(max(1, needed))
        return
      }
    }
    scale = Self.maximumScale
    multiplier = .max
  }
}
