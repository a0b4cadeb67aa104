/// A set of slot indices (the analyzer's forgotten stream slots) as one bit a slot: asked once
/// for every slot at every harvest, and a `Set<Int>`'s hash and probe for each of 200,000 slots
/// was 3 % of a harvest under churn (perf, issue 37). A bit a slot is 25 KB at 200,000 slots.
struct SlotSet: Sendable, Equatable {
  private var words: [UInt64] = []
  /// How many slots are in the set.
  private(set) var count = 0

  init() {}

  func contains(_ slot: Int) -> Bool {
    let word = slot >> 6
    guard slot >= 0, word < words.count else { return false }
    return words[word] & (1 << UInt64(slot & 63)) != 0
  }

  mutating func insert(_ slot: Int) {
    guard slot >= 0 else { return }
    let word = slot >> 6
    if word >= words.count {
      words.append(contentsOf: repeatElement(0, count: word + 1 - words.count))
    }
    let bit: UInt64 = 1 << UInt64(slot & 63)
    guard words[word] & bit == 0 else { return }
    words[word] |= bit
    count += 1
  }

  mutating func remove(_ slot: Int) {
    let word = slot >> 6
    guard slot >= 0, word < words.count else { return }
    let bit: UInt64 = 1 << UInt64(slot & 63)
    guard words[word] & bit != 0 else { return }
    words[word] &= ~bit
    count -= 1
  }
}
