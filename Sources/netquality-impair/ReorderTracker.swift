/// Counts the reordering one direction actually produced, from the order packets leave in
/// (whatever caused it: a reorder hold or jitter larger than the packet interval). Two views of
/// the same events:
/// - reordered: a packet sent while an earlier-arrived one is still queued (it overtakes);
/// - overtaken: a packet sent after a later-arrived one was already sent (RFC 4737's
///   "reordered", and what a receiver counts as late: the agent's `reordered`).
/// One packet held behind two others makes reordered 2 and overtaken 1.
/// Duplicates are not counted: their copies leave right behind their originals.
struct ReorderTracker: Sendable {
  private(set) var reordered: Int64 = 0
  private(set) var overtaken: Int64 = 0
  /// Arrival indices queued and not yet sent.
  private var pendingArrivalIndices: Set<Int64>
  /// No queued packet has a lower arrival index; only ever moves up, so all the skipping it does
  /// adds up to one step per packet.
  private var lowestPossiblyPending: Int64 = 0
  private var highestSentArrivalIndex: Int64 = -1

  init(capacity: Int) {
    pendingArrivalIndices = Set(minimumCapacity: capacity)
  }

  mutating func queued(arrivalIndex: Int64) {
    pendingArrivalIndices.insert(arrivalIndex)
  }

  mutating func sent(arrivalIndex: Int64) {
    while lowestPossiblyPending < arrivalIndex
      && !pendingArrivalIndices.contains(lowestPossiblyPending)
    {
      lowestPossiblyPending += 1
    }
    if lowestPossiblyPending < arrivalIndex { reordered += 1 }
    if arrivalIndex < highestSentArrivalIndex {
      overtaken += 1
    } else {
      highestSentArrivalIndex = arrivalIndex
    }
    pendingArrivalIndices.remove(arrivalIndex)
  }

  /// A queued packet that will never leave (the kernel refused to send it).
  mutating func abandoned(arrivalIndex: Int64) {
    pendingArrivalIndices.remove(arrivalIndex)
  }
}
