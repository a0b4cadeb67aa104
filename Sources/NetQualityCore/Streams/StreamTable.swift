/// Maps stream keys to dense indices with open addressing and linear probing.
///
/// Swift's `Dictionary` hashes with SipHash, which costs more than the rest of the per-packet
/// work; streams are never removed from a capture's table, so a simple probe table with a cheap
/// mixing hash (see `StreamKey.tableHash`) is enough, and it never allocates on lookup.
struct StreamTable {
  private(set) var keys: ContiguousArray<StreamKey> = []
  private var slots: ContiguousArray<Int32>
  private var mask: Int

  init(initialCapacity: Int = 1024) {
    var capacity = 16
    while capacity < initialCapacity * 2 { capacity <<= 1 }
    slots = ContiguousArray(repeating: -1, count: capacity)
    mask = capacity - 1
    keys.reserveCapacity(initialCapacity)
  }

  var count: Int { keys.count }

  @inline(__always)
  func find(_ key: StreamKey) -> Int? {
    var slot = Int(truncatingIfNeeded: key.tableHash) & mask
    while true {
      let index = slots[slot]
      if index < 0 { return nil }
      if keys[Int(index)] == key { return Int(index) }
      slot = (slot + 1) & mask
    }
  }

  /// Adds a key known to be absent and returns its index.
  mutating func insert(_ key: StreamKey) -> Int {
    if (keys.count + 1) * 2 > slots.count { grow() }
    let index = keys.count
    keys.append(key)
    place(index: index, hash: key.tableHash)
    return index
  }

  private mutating func place(index: Int, hash: UInt64) {
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] >= 0 { slot = (slot + 1) & mask }
    slots[slot] = Int32(index)
  }

  private mutating func grow() {
    slots = ContiguousArray(repeating: -1, count: slots.count * 2)
    mask = slots.count - 1
    for (index, key) in keys.enumerated() { place(index: index, hash: key.tableHash) }
  }
}
