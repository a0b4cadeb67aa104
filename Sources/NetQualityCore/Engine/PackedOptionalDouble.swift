/// A `Double?` in 8 bytes instead of 16 (9 rounded up to the alignment of what follows): nil is
/// a signalling NaN with a payload, a bit pattern no arithmetic produces (IEEE 754-2008
/// section 6.2: operations deliver quiet NaNs), so every value a computation gives, a quiet NaN
/// included, is stored as it is. A peer snapshot holds seven of them, kept for every peer and
/// built again at each tick.
///
/// Equal when the bits are: unlike `Double?`, a stored NaN equals itself, which is what a
/// snapshot's equality (did anything change?) wants.
@propertyWrapper
public struct PackedOptionalDouble: Sendable, Equatable {
  /// Sign 0, exponent all ones, quiet bit 0, payload 0xA11: a signalling NaN.
  private static let nilBits: UInt64 = 0x7FF0_0000_0000_0A11

  private var bits: UInt64

  init(_ value: Double?) {
    bits = value?.bitPattern ?? Self.nilBits
  }

  public init(wrappedValue: Double?) {
    self.init(wrappedValue)
  }

  var value: Double? {
    bits == Self.nilBits ? nil : Double(bitPattern: bits)
  }

  public var wrappedValue: Double? {
    get { value }
    set { self = PackedOptionalDouble(newValue) }
  }
}
