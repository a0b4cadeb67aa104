/// What the clear parts of an encrypted WebRTC call tell: round trips from ICE checks, and the
/// end of the call. SRTCP hides receiver reports and BYE; STUN and DTLS record headers do not.
extension StreamAnalyzer {
  /// A STUN message, at the top level or relayed by TURN (the datagram's outer addresses). ICE
  /// connectivity and consent checks are Binding requests answered by their peer (RFC 8445
  /// section 7.2, RFC 7675 section 5.1, every 5 s or so): a request seen going to an address
  /// and the response coming back from it, with the same transaction ID, time the network
  /// beyond the capture point to that address and back. A Refresh with LIFETIME 0 releases a
  /// TURN allocation (RFC 8656 section 7.2): its client is ending the call.
  mutating func ingestSTUN(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    guard let message = STUNMessage(payload) else { return }
    if message.releasesAllocation {
      counters.turnAllocationsReleased += 1
      recordSessionEnd(.turnAllocationReleased, datagram: datagram, at: time)
      return
    }
    guard message.isBinding else { return }
    switch message.messageClass {
    case .request:
      stunTransactions.request(message, to: datagram.destinationAddress, at: time)
    case .successResponse, .errorResponse:
      guard
        let seconds = stunTransactions.response(message, from: datagram.sourceAddress, at: time)
      else { return }
      counters.stunRoundTrips += 1
      var statistics = stunRoundTripByAddress[datagram.sourceAddress] ?? RoundTripStatistics()
      statistics.add(seconds, at: time)
      stunRoundTripByAddress[datagram.sourceAddress] = statistics
    case .indication:
      break
    }
  }

  /// A DTLS record (RFC 6347 section 4.1: content type, version, epoch, sequence, length).
  /// Content type 21 is an alert: after the handshake it is encrypted, but its type is not,
  /// and on an established DTLS-SRTP association an alert is close_notify or a fatal error,
  /// either of which ends it (RFC 5246 section 7.2).
  mutating func ingestDTLS(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    guard payload.count >= 13, payload.byte(at: 0) == 21 else { return }
    counters.dtlsAlerts += 1
    recordSessionEnd(.dtlsAlert, datagram: datagram, at: time)
  }

  /// Both ends of the datagram: whichever of them is the remote peer, its call ended.
  private mutating func recordSessionEnd(
    _ reason: SessionEnd.Reason, datagram: UDPDatagram, at time: CaptureTime
  ) {
    let end = SessionEnd(time: time, reason: reason)
    sessionEndByAddress[datagram.sourceAddress] = end
    sessionEndByAddress[datagram.destinationAddress] = end
  }
}

/// A signal in the clear that a call with an address ended.
public struct SessionEnd: Sendable, Equatable {
  public enum Reason: String, Sendable {
    /// A DTLS alert record on the flow (close_notify at a normal hangup).
    case dtlsAlert = "dtls_alert"
    /// The TURN client released its allocation (Refresh, LIFETIME 0).
    case turnAllocationReleased = "turn_allocation_released"
    /// Every stream of the peer ended with an RTCP BYE.
    case rtcpBye = "rtcp_bye"
  }

  public var time: CaptureTime
  public var reason: Reason
}

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
