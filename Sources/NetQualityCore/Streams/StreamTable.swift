/// Maps stream keys to dense indices with open addressing and linear probing.
///
/// Swift's `Dictionary` hashes with SipHash, which costs more than the rest of the per-packet
/// work, so this is a probe table with a cheap mixing hash (see `StreamKey.tableHash`) whose
/// lookups never allocate. Each slot holds the stream index and 32 bits of the hash, from
/// which the home slot follows, so a probe touches the stream (where its key lives) only when
/// the tags agree, and removal can shift entries back (no tombstones: a table that lives for
/// months never degrades).
///
/// The table is kept at most a quarter full: a lookup's probes past the home slot are
/// mispredicted branches on the per-packet path, and linear probing expects about
/// (1 + 1/(1 - load)) / 2 probes for a key that is present (Knuth, TAOCP vol. 3, 6.4):
/// 1.5 at half full, 1.17 at a quarter, for 8 more bytes a stream.
struct StreamTable {
  /// Slots per stream at most: the table grows when a stream would pass a quarter of it.
  private static let slotsPerStream = 4
  /// (index + 1) << 32 | hash tag; 0 is an empty slot. The home slot is tag & mask.
  private var slots: ContiguousArray<UInt64>
  private var mask: Int
  private(set) var count = 0

  init(initialCapacity: Int = 1024) {
    var capacity = 16
    while capacity < initialCapacity * Self.slotsPerStream { capacity <<= 1 }
    slots = ContiguousArray(repeating: 0, count: capacity)
    mask = capacity - 1
  }

  @inline(__always)
  private static func tag(_ key: StreamKey) -> UInt64 { key.tableHash & 0xFFFF_FFFF }

  /// The index of `key`, using `keyAt` to read the key stored at a candidate index.
  @inline(__always)
  func find(_ key: StreamKey, keyAt: (Int) -> StreamKey) -> Int? {
    slotOf(key, keyAt: keyAt).map { Int(slots[$0] >> 32) - 1 }
  }

  @inline(__always)
  private func slotOf(_ key: StreamKey, keyAt: (Int) -> StreamKey) -> Int? {
    let tag = Self.tag(key)
    var slot = Int(truncatingIfNeeded: tag) & mask
    while true {
      let entry = slots[slot]
      if entry == 0 { return nil }
      if entry & 0xFFFF_FFFF == tag && keyAt(Int(entry >> 32) - 1) == key { return slot }
      slot = (slot + 1) & mask
    }
  }

  /// Records `key` (known to be absent) at `index`; `keys` are every key present, for a rehash.
  mutating func insert(
    _ key: StreamKey, at index: Int, rehashing keys: some Sequence<(Int, StreamKey)>
  ) {
    if (count + 1) * Self.slotsPerStream > slots.count {
      slots = ContiguousArray(repeating: 0, count: slots.count * 2)
      mask = slots.count - 1
      for (existing, existingKey) in keys { place(index: existing, tag: Self.tag(existingKey)) }
    }
    place(index: index, tag: Self.tag(key))
    count += 1
  }

  /// Removes `key`, shifting later entries of its probe run back (`ProbeRun.remove`).
  mutating func remove(_ key: StreamKey, keyAt: (Int) -> StreamKey) {
    guard let hole = slotOf(key, keyAt: keyAt) else { return }
    ProbeRun.remove(at: hole, slots: &slots, mask: mask)
    count -= 1
  }

  private mutating func place(index: Int, tag: UInt64) {
    var slot = Int(truncatingIfNeeded: tag) & mask
    while slots[slot] != 0 { slot = (slot + 1) & mask }
    slots[slot] = UInt64(index + 1) << 32 | tag
  }
}
