/// Binding requests waiting for their response, in a fixed table (so a flood of requests costs
/// no memory beyond it and the per-packet path allocates nothing once it exists): a request
/// takes the slot of its transaction ID's hash, replacing whatever was there.
struct STUNTransactions {
  /// Slots: far more than the checks in flight on any host (one per candidate pair every
  /// 5 s, RFC 7675 section 5.1, answered within a round trip).
  static let slots = 4096
  /// A response later than this pairs with nothing: RFC 8489 section 6.2.1 gives up on a
  /// transaction after 39.5 s by default, but a consent check answered after 10 s says more
  /// about the peer's stack than the network, and ICE drops the pair long before.
  static let maximumWaitNanoseconds: Int64 = 10_000_000_000

  struct Pending {
    var high: UInt64 = 0
    var low: UInt32 = 0
    var destination = IPAddress(ipv4: 0)
    var sentNanoseconds: Int64 = 0
    var isUsed = false
  }

  var pending: ContiguousArray<Pending> = []

  static func slot(_ message: STUNMessage) -> Int {
    // The transaction ID is random (RFC 8489 section 5): its low bits are a fine hash.
    Int(truncatingIfNeeded: message.transactionHigh ^ UInt64(message.transactionLow)) & (slots - 1)
  }

  /// A request seen going to `destination`. A retransmission (same ID) restarts the timing,
  /// so the pair measures the copy that was answered when the first was lost.
  mutating func request(_ message: STUNMessage, to destination: IPAddress, at time: CaptureTime) {
    if pending.isEmpty {
      pending = ContiguousArray(repeating: Pending(), count: Self.slots)
    }
    pending[Self.slot(message)] = Pending(
      high: message.transactionHigh, low: message.transactionLow, destination: destination,
      sentNanoseconds: time.nanosecondsSinceEpoch, isUsed: true)
  }

  /// The round trip of a response from `source` to a request sent there, in seconds; nil when
  /// no such request is waiting.
  mutating func response(_ message: STUNMessage, from source: IPAddress, at time: CaptureTime)
    -> Double?
  {
    guard !pending.isEmpty else { return nil }
    let slot = Self.slot(message)
    let request = pending[slot]
    guard request.isUsed, request.high == message.transactionHigh,
      request.low == message.transactionLow, request.destination == source
    else { return nil }
    pending[slot].isUsed = false
    let elapsed = time.nanosecondsSinceEpoch &- request.sentNanoseconds
    guard elapsed >= 0, elapsed <= Self.maximumWaitNanoseconds else { return nil }
    return Double(elapsed) * 1e-9
  }
}
