import NetQualityCore

/// A table of at most `capacity` entries that forgets the least recently used one to make room
/// and treats an entry unused for longer than the idle interval as gone.
///
/// Entries live in one array linked most- to least-recently used by index, and the dictionary
/// that finds them is sized once for the capacity: after warm-up a lookup, an insertion or an
/// eviction allocates nothing.
struct LRUTable<Key: Hashable, Value> {
  private struct Entry {
    var key: Key
    var value: Value
    var lastUsed: CaptureTime
    var newer: Int
    var older: Int
  }

  let capacity: Int
  let idleNanoseconds: Int64
  private var entries: [Entry] = []
  private var index: [Key: Int]
  /// Most and least recently used entries, -1 when the table is empty.
  private var newest = -1
  private var oldest = -1
  /// Slots freed by expiry, reused before the array grows.
  private var freeSlots: [Int] = []

  /// Entries forgotten to make room, and entries that lapsed from idleness.
  private(set) var evictions = 0
  private(set) var expirations = 0

  init(capacity: Int, idleSeconds: Double) {
    self.capacity = max(1, capacity)
    idleNanoseconds = max(0, CaptureTime.nanoseconds(idleSeconds))
    index = [:]
    index.reserveCapacity(self.capacity)
    entries.reserveCapacity(self.capacity)
    freeSlots.reserveCapacity(self.capacity)
  }

  var count: Int { index.count }

  /// The slot of `key`, used at `now`: an existing live entry, or a new one made by `create`
  /// (then `isNew` is true), for which idle entries are expired and, if the table is still
  /// full, the least recently used entry is evicted. An entry idle longer than the interval
  /// counts as gone and is made anew.
  mutating func slot(for key: Key, now: CaptureTime, create: () -> Value) -> (
    slot: Int, isNew: Bool
  ) {
    expireIdle(now: now)
    if let found = index[key] {
      unlink(found)
      link(found)
      entries[found].lastUsed = now
      return (found, false)
    }
    let slot: Int
    let entry = Entry(key: key, value: create(), lastUsed: now, newer: -1, older: -1)
    if let free = freeSlots.popLast() {
      slot = free
      entries[slot] = entry
    } else if entries.count < capacity {
      slot = entries.count
      entries.append(entry)
    } else {
      slot = oldest
      unlink(slot)
      index[entries[slot].key] = nil
      evictions += 1
      entries[slot] = entry
    }
    index[key] = slot
    link(slot)
    return (slot, true)
  }

  subscript(slot: Int) -> Value {
    get { entries[slot].value }
    set { entries[slot].value = newValue }
  }

  /// Drops entries (oldest first) unused for longer than the idle interval.
  private mutating func expireIdle(now: CaptureTime) {
    let cutoff = now.advanced(byNanoseconds: -idleNanoseconds)
    while oldest >= 0, entries[oldest].lastUsed < cutoff {
      let slot = oldest
      unlink(slot)
      index[entries[slot].key] = nil
      freeSlots.append(slot)
      expirations += 1
    }
  }

  /// Makes `slot` the newest.
  private mutating func link(_ slot: Int) {
    entries[slot].newer = -1
    entries[slot].older = newest
    if newest >= 0 { entries[newest].newer = slot }
    newest = slot
    if oldest < 0 { oldest = slot }
  }

  private mutating func unlink(_ slot: Int) {
    let newer = entries[slot].newer
    let older = entries[slot].older
    if newer >= 0 { entries[newer].older = older } else { newest = older }
    if older >= 0 { entries[older].newer = newer } else { oldest = newer }
    entries[slot].newer = -1
    entries[slot].older = -1
  }
}
