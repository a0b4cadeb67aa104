/// Maps stream keys to dense indices with open addressing and linear probing.
///
/// Swift's `Dictionary` hashes with SipHash, which costs more than the rest of the per-packet
/// work; streams are never removed from a capture's table, so a probe table with a cheap mixing
/// hash (see `StreamKey.tableHash`) is enough, and lookups never allocate. Each slot holds the
/// stream index and 32 bits of the hash, so a probe touches the stream (where its key lives)
/// only when the tags agree: one cache miss for the slot, one for the stream.
struct StreamTable {
  /// (index + 1) << 32 | hash tag; 0 is an empty slot.
  private var slots: ContiguousArray<UInt64>
  private var mask: Int
  private(set) var count = 0

  init(initialCapacity: Int = 1024) {
    var capacity = 16
    while capacity < initialCapacity * 2 { capacity <<= 1 }
    slots = ContiguousArray(repeating: 0, count: capacity)
    mask = capacity - 1
  }

  /// The index of `key`, using `keyAt` to read the key stored at a candidate index.
  @inline(__always)
  func find(_ key: StreamKey, keyAt: (Int) -> StreamKey) -> Int? {
    let hash = key.tableHash
    let tag = hash & 0xFFFF_FFFF
    var slot = Int(truncatingIfNeeded: hash >> 32) & mask
    while true {
      let entry = slots[slot]
      if entry == 0 { return nil }
      if entry & 0xFFFF_FFFF == tag {
        let index = Int(entry >> 32) - 1
        if keyAt(index) == key { return index }
      }
      slot = (slot + 1) & mask
    }
  }

  /// Records `key` (known to be absent) at the next index and returns that index.
  mutating func insert(_ key: StreamKey, rehashing keys: some Sequence<StreamKey>) -> Int {
    if (count + 1) * 2 > slots.count {
      slots = ContiguousArray(repeating: 0, count: slots.count * 2)
      mask = slots.count - 1
      for (index, existing) in keys.enumerated() { place(index: index, hash: existing.tableHash) }
    }
    let index = count
    place(index: index, hash: key.tableHash)
    count += 1
    return index
  }

  private mutating func place(index: Int, hash: UInt64) {
    var slot = Int(truncatingIfNeeded: hash >> 32) & mask
    while slots[slot] != 0 { slot = (slot + 1) & mask }
    slots[slot] = UInt64(index + 1) << 32 | hash & 0xFFFF_FFFF
  }
}
