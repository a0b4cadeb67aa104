/// What the analyzer knows of an address besides its streams: when and how often it sends
/// RTCP (liveness of a peer whose media is silent), the ICE round trips to it, and the latest
/// clear end of its call (DTLS alert, TURN release). Each part is forgotten on its own once as
/// old as the streams forgotten with it (`StreamAnalyzer.forget`); the address goes with the
/// last of them.
///
/// Kept in slots, one per address, found by a table of addresses; each stream remembers the
/// slot of its remote address's facts (`StreamAnalyzer.remoteFactsSlots`). The harvest asks for the
/// facts of every stream's peer at every tick: a lookup by address in a table of 130,000
/// addresses (a hash and two or three cache misses) was a third of the harvest under churn
/// (perf of `netquality-engine-bench --churn 1000 10 150`, issue 37); the remembered slot is
/// one read, checked against the address it holds (a slot given back and taken by another
/// address is looked up again).
public struct AnalyzedAddress: Sendable {
  public var cadence: RTCPCadence?
  public var stun: RoundTripStatistics?
  public var end: SessionEnd?

  var isEmpty: Bool { cadence == nil && stun == nil && end == nil }
}

/// The analyzer's `AnalyzedAddress`, in slots of a `SlotStore` (see there).
struct AnalyzedAddressTable: Sendable {
  private struct Slot: Sendable {
    /// nil: a free slot.
    var address: IPAddress?
    var facts = AnalyzedAddress()
  }

  private var slotByAddress: [IPAddress: Int32] = [:]
  private var slots = SlotStore(empty: Slot())

  /// Addresses with any fact.
  var count: Int { slotByAddress.count }
  var isEmpty: Bool { slotByAddress.isEmpty }

  /// The facts of `address`, nil without any.
  subscript(address: IPAddress) -> AnalyzedAddress? {
    slotByAddress[address].map { slots[$0].facts }
  }

  /// The slot of `address`'s facts, nil without any.
  func slot(of address: IPAddress) -> Int32? { slotByAddress[address] }

  /// Whether `slot` holds the facts of `address` (a remembered slot may have been given back
  /// since, or taken by another address, or gone with a `pack`).
  @inline(__always)
  func holds(_ address: IPAddress, at slot: Int32) -> Bool {
    slots.isSlot(slot) && slots[slot].address == address
  }

  /// The facts in `slot` (one `holds` said is `address`'s).
  @inline(__always)
  func facts(at slot: Int32) -> AnalyzedAddress { slots[slot].facts }

  /// Changes the facts of `address` in place, giving it a slot first if it has none. One
  /// lookup by address, no allocation once the tables have grown (asked per RTCP packet:
  /// scripts/check-allocations.sh).
  mutating func update(_ address: IPAddress, _ change: (inout AnalyzedAddress) -> Void) {
    let slot: Int32
    if let existing = slotByAddress[address] {
      slot = existing
    } else {
      slot = slots.take()
      slots[slot].address = address
      slotByAddress[address] = slot
    }
    change(&slots[slot].facts)
  }

  /// Forgets each fact older than `cutoff` (an RTCP cadence whose last packet, a round trip
  /// whose last sample, an end that came before it), and the addresses left with none. Once
  /// under a quarter of the slots are in use (of more than 1,024), the rest are packed and the
  /// table rebuilt at its size, so the memory of a wave of peers comes back when they are gone
  /// (the streams' remembered slots are then looked up again once). With none left the store
  /// drops its storage itself.
  mutating func forget(before cutoff: CaptureTime) {
    var released = false
    for index in 0..<slots.slotsMade {
      let slot = Int32(truncatingIfNeeded: index)
      guard let address = slots[slot].address else { continue }
      let gone = Self.forget(&slots[slot].facts, before: cutoff)
      guard gone else { continue }
      slotByAddress.removeValue(forKey: address)
      slots.release(slot)
      released = true
    }
    guard released else { return }
    if slotByAddress.isEmpty {
      slotByAddress = [:]
    } else if slots.slotsMade > 1024, slots.count < slots.slotsMade / 4 {
      var table = [IPAddress: Int32](minimumCapacity: slots.count)
      slots.pack { slot, element in
        if let address = element.address { table[address] = slot }
      }
      slotByAddress = table
    }
  }

  /// Forgets each of `facts` older than `cutoff`; whether none is left.
  private static func forget(_ facts: inout AnalyzedAddress, before cutoff: CaptureTime) -> Bool {
    if let cadence = facts.cadence, cadence.last < cutoff { facts.cadence = nil }
    if let stun = facts.stun, (stun.lastTime ?? cutoff) < cutoff { facts.stun = nil }
    if let end = facts.end, end.time < cutoff { facts.end = nil }
    return facts.isEmpty
  }
}

extension StreamAnalyzer {
  /// What is known of `address` besides its streams; nil: nothing.
  public func facts(of address: IPAddress) -> AnalyzedAddress? { addresses[address] }

  /// The addresses of which anything is known besides their streams.
  public var addressesWithFacts: Int { addresses.count }
}
