/// An integer stored in 32 bits, clamped on the way in: a window's counts (a 2-second window
/// would need a billion packets a second to reach the bound) in the records kept for every
/// peer and stream, 4 bytes each instead of 8.
@propertyWrapper
public struct ClampedInt32<Value: FixedWidthInteger & Sendable>: Sendable, Equatable {
  private var stored: Int32

  public init(wrappedValue: Value) {
    stored = Int32(clamping: wrappedValue)
  }

  public var wrappedValue: Value {
    get { Value(stored) }
    set { stored = Int32(clamping: newValue) }
  }
}
