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

/// The analyzer's `AnalyzedAddress`, in slots (see there).
struct AnalyzedAddressTable: Sendable {
  private struct Slot: Sendable {
    var address: IPAddress
    var facts: AnalyzedAddress
    var inUse: Bool
  }

  private var slotByAddress: [IPAddress: Int32] = [:]
  private var slots = ContiguousArray<Slot>()
  private var free: [Int32] = []

  /// Addresses with any fact.
  var count: Int { slotByAddress.count }
  var isEmpty: Bool { slotByAddress.isEmpty }

  /// The facts of `address`, nil without any.
  subscript(address: IPAddress) -> AnalyzedAddress? {
    slotByAddress[address].map { slots[Int($0)].facts }
  }

  /// The slot of `address`'s facts, nil without any.
  func slot(of address: IPAddress) -> Int32? { slotByAddress[address] }

  /// Whether `slot` holds the facts of `address` (a remembered slot may have been given back
  /// since, or taken by another address).
  @inline(__always)
  func holds(_ address: IPAddress, at slot: Int32) -> Bool {
    slot >= 0 && Int(slot) < slots.count && slots[Int(slot)].inUse
      && slots[Int(slot)].address == address
  }

  /// The facts in `slot` (one `holds` said is `address`'s).
  @inline(__always)
  func facts(at slot: Int32) -> AnalyzedAddress { slots[Int(slot)].facts }

  /// Changes the facts of `address` in place, giving it a slot first if it has none. One
  /// lookup by address, no allocation once the tables have grown (asked per RTCP packet:
  /// scripts/check-allocations.sh).
  mutating func update(_ address: IPAddress, _ change: (inout AnalyzedAddress) -> Void) {
    let slot: Int32
    if let existing = slotByAddress[address] {
      slot = existing
    } else {
      slot = take(for: address)
    }
    change(&slots[Int(slot)].facts)
  }

  private mutating func take(for address: IPAddress) -> Int32 {
    let fresh = Slot(address: address, facts: AnalyzedAddress(), inUse: true)
    let slot: Int32
    if let reused = free.popLast() {
      slot = reused
      slots[Int(slot)] = fresh
    } else {
      slot = Int32(truncatingIfNeeded: slots.count)
      slots.append(fresh)
    }
    slotByAddress[address] = slot
    return slot
  }

  /// Forgets each fact older than `cutoff` (an RTCP cadence whose last packet, a round trip
  /// whose last sample, an end that came before it), and the addresses left with none. Once
  /// under a quarter of the slots are in use (of more than 1,024), the rest are packed and the
  /// table rebuilt at its size, so the memory of a wave of peers comes back when they are gone
  /// (the streams' remembered slots are then looked up again once).
  mutating func forget(before cutoff: CaptureTime) {
    var released = false
    for index in slots.indices where slots[index].inUse {
      if let cadence = slots[index].facts.cadence, cadence.last < cutoff {
        slots[index].facts.cadence = nil
      }
      if let stun = slots[index].facts.stun, (stun.lastTime ?? cutoff) < cutoff {
        slots[index].facts.stun = nil
      }
      if let end = slots[index].facts.end, end.time < cutoff {
        slots[index].facts.end = nil
      }
      guard slots[index].facts.isEmpty else { continue }
      slotByAddress.removeValue(forKey: slots[index].address)
      slots[index].inUse = false
      free.append(Int32(truncatingIfNeeded: index))
      released = true
    }
    guard released else { return }
    if slotByAddress.isEmpty {
      self = AnalyzedAddressTable()
    } else if slots.count > 1024, slotByAddress.count < slots.count / 4 {
      pack()
    }
  }

  /// The slots in use moved to the front, in their order, and the tables rebuilt at their size.
  private mutating func pack() {
    var packed = ContiguousArray<Slot>()
    packed.reserveCapacity(slotByAddress.count)
    var table = [IPAddress: Int32](minimumCapacity: slotByAddress.count)
    for slot in slots where slot.inUse {
      table[slot.address] = Int32(truncatingIfNeeded: packed.count)
      packed.append(slot)
    }
    (slots, slotByAddress, free) = (packed, table, [])
  }
}

extension StreamAnalyzer {
  /// What is known of `address` besides its streams; nil: nothing.
  public func facts(of address: IPAddress) -> AnalyzedAddress? { addresses[address] }

  /// The addresses of which anything is known besides their streams.
  public var addressesWithFacts: Int { addresses.count }
}
