/// A large, rarely present value kept out of a record that is stored by the hundred thousand
/// (a peer's probe figures in its snapshot, an alert in an event): the record holds one
/// reference instead of the value's bytes, and copies of the record share it. Never changed in
/// place: a new value is a new box.
final class OutOfLine<Value: Sendable & Equatable>: Sendable, Equatable {
  let value: Value

  init(_ value: Value) { self.value = value }

  static func == (lhs: OutOfLine, rhs: OutOfLine) -> Bool {
    lhs === rhs || lhs.value == rhs.value
  }
}
