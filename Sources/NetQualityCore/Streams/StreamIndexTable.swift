/// Stream indices under a 32-bit hash of a key that several streams may share (a flow, an
/// SSRC): open addressing with linear probing, one 8-byte slot per stream, the table at most
/// half full. The caller checks each candidate's key; a lookup never allocates.
///
/// A dictionary of each key's indices keeps a bucket of key and value for every slot of its
/// hash table: at 100,000 streams, 262,144 buckets of 64 bytes for the flows (16 MiB) and
/// 5 MiB for the SSRCs, where this table takes 2 MiB.
struct StreamIndexTable {
  /// (index + 1) << 32 | tag; 0 is an empty slot. The home slot is tag & mask.
  private var slots = ContiguousArray<UInt64>(repeating: 0, count: 16)
  private var mask = 15
  private(set) var count = 0

  init(minimumCapacity: Int = 8) {
    var capacity = 16
    while capacity < minimumCapacity * 2 { capacity <<= 1 }
    slots = ContiguousArray(repeating: 0, count: capacity)
    mask = capacity - 1
  }

  /// The indices stored under `tag` (and any other tag's sharing its probe run: the caller
  /// checks the keys).
  func candidates(tag: UInt32) -> Candidates {
    Candidates(slots: slots, mask: mask, tag: UInt64(tag))
  }

  struct Candidates: Sequence, IteratorProtocol {
    let slots: ContiguousArray<UInt64>
    let mask: Int
    let tag: UInt64
    private var slot: Int

    init(slots: ContiguousArray<UInt64>, mask: Int, tag: UInt64) {
      self.slots = slots
      self.mask = mask
      self.tag = tag
      slot = Int(truncatingIfNeeded: tag) & mask
    }

    mutating func next() -> Int? {
      while true {
        let entry = slots[slot]
        if entry == 0 { return nil }
        slot = (slot + 1) & mask
        if entry & 0xFFFF_FFFF == tag { return Int(entry >> 32) - 1 }
      }
    }
  }

  mutating func insert(_ index: Int, tag: UInt32) {
    if (count + 1) * 2 > slots.count {
      let old = slots
      slots = ContiguousArray(repeating: 0, count: slots.count * 2)
      mask = slots.count - 1
      for entry in old where entry != 0 { place(entry) }
    }
    place(UInt64(index + 1) << 32 | UInt64(tag))
    count += 1
  }

  /// Removes `index` stored under `tag`, shifting later entries of its probe run back
  /// (`ProbeRun.remove`).
  mutating func remove(_ index: Int, tag: UInt32) {
    let wanted = UInt64(index + 1) << 32 | UInt64(tag)
    var hole = Int(tag) & mask
    while slots[hole] != wanted {
      if slots[hole] == 0 { return }
      hole = (hole + 1) & mask
    }
    ProbeRun.remove(at: hole, slots: &slots, mask: mask)
    count -= 1
  }

  private mutating func place(_ entry: UInt64) {
    var slot = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) & mask
    while slots[slot] != 0 { slot = (slot + 1) & mask }
    slots[slot] = entry
  }
}
