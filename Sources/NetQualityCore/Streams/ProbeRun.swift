/// The slots of the stream tables (`StreamTable`, `StreamIndexTable`): open addressing with
/// linear probing, each slot (index + 1) << 32 | a 32-bit tag whose low bits are its home slot,
/// 0 an empty one.
enum ProbeRun {
  /// Empties the slot at `hole` and shifts the later entries of its probe run back (Knuth's
  /// algorithm R, TAOCP vol. 3, 6.4): no tombstones, so a table that lives for months never
  /// degrades.
  static func remove(at hole: Int, slots: inout ContiguousArray<UInt64>, mask: Int) {
    var hole = hole
    slots[hole] = 0
    var slot = (hole + 1) & mask
    while slots[slot] != 0 {
      let home = Int(truncatingIfNeeded: slots[slot] & 0xFFFF_FFFF) & mask
      // Move the entry into the hole unless its home lies cyclically in (hole, slot].
      let stays = hole <= slot ? (hole < home && home <= slot) : (hole < home || home <= slot)
      if !stays {
        slots[hole] = slots[slot]
        slots[slot] = 0
        hole = slot
      }
      slot = (slot + 1) & mask
    }
  }
}
