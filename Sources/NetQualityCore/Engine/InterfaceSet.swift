/// A set of capture interface indices (0...255) in 32 bytes inline: a peer's and each tick's
/// peer window's interfaces, without the heap storage a `Set<UInt8>` takes for every peer.
struct InterfaceSet: Equatable, Sequence {
  private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

  var isEmpty: Bool { words.0 | words.1 | words.2 | words.3 == 0 }

  mutating func insert(_ interface: UInt8) {
    let bit = UInt64(1) << UInt64(interface & 63)
    switch interface >> 6 {
    case 0: words.0 |= bit
    case 1: words.1 |= bit
    case 2: words.2 |= bit
    default: words.3 |= bit
    }
  }

  func contains(_ interface: UInt8) -> Bool {
    let bit = UInt64(1) << UInt64(interface & 63)
    switch interface >> 6 {
    case 0: return words.0 & bit != 0
    case 1: return words.1 & bit != 0
    case 2: return words.2 & bit != 0
    default: return words.3 & bit != 0
    }
  }

  static func == (lhs: InterfaceSet, rhs: InterfaceSet) -> Bool {
    lhs.words == rhs.words
  }

  /// The members in increasing order.
  func makeIterator() -> Iterator { Iterator(set: self) }

  struct Iterator: IteratorProtocol {
    let set: InterfaceSet
    var position = 0

    mutating func next() -> UInt8? {
      while position < 256 {
        let candidate = UInt8(position)
        position += 1
        if set.contains(candidate) { return candidate }
      }
      return nil
    }
  }
}
