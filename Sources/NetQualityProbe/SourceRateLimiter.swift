import NetQualityCore

/// The reflector's per-source rate limit: a token bucket per source address (or per address
/// and port: `ReflectorPolicy` keeps one table of each), kept in a fixed array of hashed slots
/// that never forgets what a source has used.
///
/// The buckets used to live in a least-recently-used table of 4,096 entries. A spoofer that
/// cycled 4,200 other source addresses between bursts "from" its victim had the victim's
/// emptied bucket evicted, and made anew, full, at its next packet: the victim got 809
/// replies/s against the 200/s (burst 400) documented. Any table that forgets a source to make
/// room for others writes its debt off. So nothing is forgotten here: an address hashes to one
/// of `slotCount` slots, the slot keeps its bucket's state for good, and a slot is never reset
/// or given to another source. What a source is answered is bounded by its slot's bucket —
/// `burst` + `rate` × time — whoever else sends, however many.
///
/// The price of a fixed size is sharing: two sources in one slot share its rate. Of 5,000
/// sources about 7 % share a slot with another one (1 − e^(−(n − 1)/`slotCount`)); a probe
/// session sends tens of packets a second, so two or three sharing 200/s are all answered. A
/// source that shares the slot of one a spoofer keeps drained is limited with it; holding a
/// slot drained takes more than the rate into it, so a flood at the 40,000–60,000 requests/s
/// a reflector drains (docs/stamp.md) holds at most about 300 of the slots, 0.5 %. Linux's
/// `hashlimit` takes the other way out (new sources are refused once its table holds
/// `htable-max`); that denies new, well-behaved senders whenever a spoofer fills the table,
/// where sharing a slot costs them nothing below the rate. The slot of an address comes from
/// a keyed hash, the key drawn at random when the reflector starts, so a remote sender cannot
/// choose addresses that land in another source's slot.
///
/// Each slot holds one number, kept the way ATM policers and rate limiters such as
/// redis-cell keep a token bucket: the generic cell rate algorithm (ITU-T I.371), a
/// "theoretical arrival time". A packet at time t conforms when TAT − t ≤ τ, with the emission
/// interval T = 1/rate and the tolerance τ = (burst − 1) × T; a conforming packet moves TAT to
/// max(TAT, t) + T. That is a bucket of `burst` tokens filled at `rate`, in 8 bytes: the
/// 65,536 slots take 512 KiB, allocated once, and a check allocates nothing.
public struct SourceRateLimiter: Sendable {
  /// Slots in the table: 16 times the 4,096 sources the old table held, so that sharing stays
  /// rare at the thousands of senders a reflector serves.
  static let slotCount = 65_536

  /// Nanoseconds between two packets at the rate (T), and the earliest a packet may come
  /// ahead of its theoretical time (τ).
  let emissionIntervalNanoseconds: Int64
  let toleranceNanoseconds: Int64
  /// Each slot's theoretical arrival time, nanoseconds on the caller's monotonic clock;
  /// `Int64.min` before the slot's first packet (then its bucket is full).
  private var theoreticalArrival: [Int64]
  private let key: (UInt64, UInt64)

  /// A limit of `ratePerSecond` packets a second per source with bursts of `burst` (at least
  /// 1); `key` seeds the hash of addresses to slots (random unless a test fixes it).
  public init(ratePerSecond: Double, burst: Double, key: (UInt64, UInt64)? = nil) {
    // At least 1 ns between packets, at most a day: 0 or a negative rate allows the burst
    // and then one packet a day.
    let interval = ratePerSecond > 0 ? 1e9 / ratePerSecond : 86_400e9
    emissionIntervalNanoseconds = Int64(min(86_400e9, max(1, interval)))
    toleranceNanoseconds = Int64(
      min(Double(Int64.max / 4), (max(1, burst) - 1) * Double(emissionIntervalNanoseconds)))
    theoreticalArrival = [Int64](repeating: .min, count: Self.slotCount)
    self.key = key ?? (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
  }

  /// Takes one packet from the bucket of `address` (and `port`, when the limit is per
  /// endpoint) at `now`: true when it conforms (and is counted), false when the source is over
  /// its rate (and nothing changes).
  public mutating func take(_ address: IPAddress, port: UInt16? = nil, now: CaptureTime) -> Bool {
    guard conforms(address, port: port, now: now) else { return false }
    let slot = self.slot(of: address, port: port)
    let arrival = now.nanosecondsSinceEpoch
    theoreticalArrival[slot] = max(theoreticalArrival[slot], arrival) + emissionIntervalNanoseconds
    return true
  }

  /// Whether a packet from `address` (and `port`) at `now` would conform; nothing is taken.
  func conforms(_ address: IPAddress, port: UInt16? = nil, now: CaptureTime) -> Bool {
    let arrival = now.nanosecondsSinceEpoch
    let theoretical = max(theoreticalArrival[slot(of: address, port: port)], arrival)
    return theoretical - arrival <= toleranceNanoseconds
  }

  /// The slot of `address` (and `port`): its words mixed with the key by SplitMix64's
  /// finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
  /// OOPSLA 2014), which spreads every input bit over the whole word.
  func slot(of address: IPAddress, port: UInt16? = nil) -> Int {
    var mixed = Self.mix(Self.mix(address.high ^ key.0) ^ address.low ^ key.1)
    if let port { mixed = Self.mix(mixed ^ UInt64(port)) }
    return Int(truncatingIfNeeded: mixed & UInt64(Self.slotCount - 1))
  }

  private static func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
