/// Cold per-stream records that only some streams need at a time (a clock-rate inference while
/// it runs, RTCP details once a stream's RTCP arrives), kept out of the per-stream arrays: a
/// stream holds a slot number (`Int32`, -1 for none), and a slot given back is reused. With
/// every slot free the storage goes too, so a wave of streams leaves nothing behind; with few
/// in use, `pack` gives the rest back. Also the analyzer's facts per address
/// (`AnalyzedAddressTable`).
struct SlotStore<Element> {
  private var elements = ContiguousArray<Element>()
  private var free: [Int32] = []
  /// What a new or given-back slot holds.
  private let empty: Element

  init(empty: Element) { self.empty = empty }

  /// Slots in use.
  var count: Int { elements.count - free.count }

  /// Slots made, in use or free: the slot numbers are `0..<slotsMade`.
  var slotsMade: Int { elements.count }

  /// Whether `slot` is a slot number of this store (one remembered from before a `pack` or an
  /// emptying may not be).
  @inline(__always)
  func isSlot(_ slot: Int32) -> Bool { slot >= 0 && Int(slot) < elements.count }

  /// A slot for a stream that needs one (an allocation only when the storage grows).
  mutating func take() -> Int32 {
    if let slot = free.popLast() { return slot }
    elements.append(empty)
    return Int32(elements.count - 1)
  }

  /// Gives `slot` back.
  mutating func release(_ slot: Int32) {
    elements[Int(slot)] = empty
    free.append(slot)
    if free.count == elements.count {
      elements = []
      free = []
    }
  }

  /// Moves the slots in use to the front, in their order, and gives the rest of the storage
  /// back; `moved(newSlot, element)` is told of each (to renumber what holds the slots).
  mutating func pack(_ moved: (Int32, Element) -> Void) {
    var isFree = [Bool](repeating: false, count: elements.count)
    for slot in free { isFree[Int(slot)] = true }
    var packed = ContiguousArray<Element>()
    packed.reserveCapacity(count)
    for index in elements.indices where !isFree[index] {
      moved(Int32(truncatingIfNeeded: packed.count), elements[index])
      packed.append(elements[index])
    }
    (elements, free) = (packed, [])
  }

  /// A `_read` accessor, so that a read may borrow the element instead of copying it out.
  /// perf of the harvest under churn still books the element's copy to the array's getter
  /// (issue 37); what it costs there is mostly the element's first touch, a cache miss either
  /// way.
  subscript(slot: Int32) -> Element {
    _read { yield elements[Int(slot)] }
    _modify { yield &elements[Int(slot)] }
  }
}

extension SlotStore: Sendable where Element: Sendable {}
