/// A set of capture interface indices (0..<64) in 8 bytes inline: a peer's and each tick's peer
/// window's interfaces, without the heap storage a `Set<UInt8>` takes for every peer (it was 32
/// bytes for 256 indices: 2.4 MB more at 100,000 peers). The agent captures on at most
/// `capacity` interfaces (`EngineConfiguration.maxCaptureInterfaces`, checked when the
/// captures open), so every index it gives is a member this set can hold.
struct InterfaceSet: Equatable, Sequence {
  /// Interface indices the set holds: 0..<64.
  static let capacity = 64

  private var bits: UInt64 = 0

  var isEmpty: Bool { bits == 0 }

  /// Adds `interface`; an index past the capacity (none the agent gives) is kept modulo it.
  mutating func insert(_ interface: UInt8) {
    bits |= UInt64(1) << UInt64(interface & 63)
  }

  func contains(_ interface: UInt8) -> Bool {
    interface < Self.capacity && bits & (UInt64(1) << UInt64(interface)) != 0
  }

  /// The members in increasing order.
  func makeIterator() -> Iterator { Iterator(remaining: bits) }

  struct Iterator: IteratorProtocol {
    var remaining: UInt64

    mutating func next() -> UInt8? {
      guard remaining != 0 else { return nil }
      let member = UInt8(remaining.trailingZeroBitCount)
      remaining &= remaining - 1
      return member
    }
  }
}
