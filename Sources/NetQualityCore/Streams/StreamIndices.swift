/// The indices of the streams that share a key (an SSRC, a directed flow). Nearly every key has
/// one stream: it is kept inline, and only a second and later ones take an array, so the
/// analyzer's indices cost no allocation per stream (an `[Int32]` each took 48 bytes of heap).
struct StreamIndices: Sequence {
  private var first: Int32
  private var rest: [Int32] = []

  init(_ index: Int32) { first = index }

  mutating func append(_ index: Int32) { rest.append(index) }

  /// Removes every occurrence of `index`; whether any index is left.
  mutating func remove(_ index: Int32) -> Bool {
    rest.removeAll { $0 == index }
    guard first == index else { return true }
    guard !rest.isEmpty else { return false }
    first = rest.removeFirst()
    return true
  }

  func makeIterator() -> Iterator { Iterator(indices: self) }

  struct Iterator: IteratorProtocol {
    let indices: StreamIndices
    var position = -1

    mutating func next() -> Int32? {
      defer { position += 1 }
      if position < 0 { return indices.first }
      return position < indices.rest.count ? indices.rest[position] : nil
    }
  }
}

extension Dictionary where Value == StreamIndices {
  /// Adds `index` under `key`.
  mutating func add(_ index: Int32, under key: Key) {
    if self[key]?.append(index) == nil { self[key] = StreamIndices(index) }
  }

  /// Removes `index` from under `key`, and the key once no index is left.
  mutating func remove(_ index: Int32, under key: Key) {
    if self[key]?.remove(index) == false { self[key] = nil }
  }
}
