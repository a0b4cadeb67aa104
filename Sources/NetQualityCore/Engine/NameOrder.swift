/// The order of a tick's streams by their peer's name (then by position): how the scorer
/// groups them into peers, in the order the snapshot lists peers.
///
/// Sorted by a key of the name's bytes, not by `String`'s comparison: under churn the tick
/// sorts 200,000 names, and comparing them as strings was 10 % of a tick (perf, issue 37). A
/// name of at most 32 bytes, all ASCII and none NUL (every IPv4 and most IPv6 addresses as
/// text, most configured names) has an exact key: its bytes in big-endian words, zero padded.
/// For such names the words' order is `String`'s (Swift compares strings by Unicode scalar,
/// which for ASCII is byte order, a prefix first), and equal words are equal names. Any pair
/// with a name without an exact key is compared as strings, so the order is `String`'s
/// throughout.
enum NameOrder {
  /// The positions of `names`, sorted by name and then by position.
  static func sortedPositions(_ names: [String]) -> [Int] {
    sortedPositions(names, previousRanks: { _ in -1 }, rankCount: 0)
  }

  /// The same, with the order of the tick before as a hint: `previousRank(position)` is the
  /// rank the element had then (-1: none, a new stream), below `rankCount`. The keys are laid
  /// out in that order first, the new ones after, so the sort (a merge sort of the runs it
  /// finds, Swift's `sort`) meets one long run and a short tail instead of 200,000 keys in the
  /// analyzer's order (perf of `netquality-engine-bench --churn 1000 10 110`: the sort was
  /// two thirds of this function, a tenth of a tick, issue 37). The hint changes only the
  /// time: the key ends with the position, so the order is total and the result the same
  /// whatever the hint says (a rank out of range or claimed twice is put with the new ones).
  static func sortedPositions(
    _ names: [String], previousRanks previousRank: (Int) -> Int32, rankCount: Int
  ) -> [Int] {
    var positionAtRank = [Int32](repeating: -1, count: max(0, rankCount))
    var unranked: [Int32] = []
    for position in names.indices {
      let rank = Int(previousRank(position))
      if rank >= 0, rank < positionAtRank.count, positionAtRank[rank] < 0 {
        positionAtRank[rank] = Int32(truncatingIfNeeded: position)
      } else {
        unranked.append(Int32(truncatingIfNeeded: position))
      }
    }
    var keyed: [Key] = []
    keyed.reserveCapacity(names.count)
    for position in positionAtRank where position >= 0 {
      keyed.append(Key(names[Int(position)], position: Int(position)))
    }
    for position in unranked { keyed.append(Key(names[Int(position)], position: Int(position))) }
    keyed.sort { lhs, rhs in
      guard lhs.isExact && rhs.isExact else {
        return (names[Int(lhs.position)], lhs.position) < (names[Int(rhs.position)], rhs.position)
      }
      return (lhs.words.0, lhs.words.1, lhs.words.2, lhs.words.3, lhs.position)
        < (rhs.words.0, rhs.words.1, rhs.words.2, rhs.words.3, rhs.position)
    }
    return keyed.map { Int($0.position) }
  }

  /// A name's sort key and its position.
  struct Key {
    /// Bytes a key holds: the longest IPv6 address as text is 39, but the common ones are
    /// shorter (RFC 5952 section 4 compresses zeros).
    static let bytes = 32
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var position: Int32
    var isExact = true

    init(_ name: String, position: Int) {
      self.position = Int32(truncatingIfNeeded: position)
      var count = 0
      var word: UInt64 = 0
      for byte in name.utf8 {
        guard count < Self.bytes, byte != 0, byte < 0x80 else {
          isExact = false
          return
        }
        word = word << 8 | UInt64(byte)
        count += 1
        if count % 8 == 0 {
          store(word, at: count / 8 - 1)
          word = 0
        }
      }
      if count % 8 != 0 { store(word << (8 * UInt64(8 - count % 8)), at: count / 8) }
    }

    private mutating func store(_ word: UInt64, at index: Int) {
      switch index {
      case 0: words.0 = word
      case 1: words.1 = word
      case 2: words.2 = word
      default: words.3 = word
      }
    }
  }
}
