import NetQualityCore

/// What the reflector does with one datagram.
public enum ReflectorDecision: Sendable {
  /// Send the first `length` bytes of the reply buffer (exactly the request's length) after
  /// stamping T3 into it with `STAMPReflectorPacket.stamp(_:into:key:)` and this `key`, which
  /// in authenticated mode also writes the HMAC: the reply is not complete before.
  case reply(length: Int, key: STAMPKey?)
  case refuse(ReflectorRefusal)
}

/// The STAMP Session-Reflector's decisions (RFC 8762 section 4.3), pure: datagrams and times
/// come in, replies and counters go out; no clock, no socket.
///
/// Stateful mode (section 4.3): each session, keyed by the sender's address and port, has the
/// reflector's own sequence number counting from 0, so a sender can tell loss on the way out
/// (its own numbers skip) from loss on the way back (the reflector's numbers skip). Sessions
/// live in a bounded table (least recently used forgotten first, idle ones expired): a
/// forgotten session only starts its numbers again. Rate limits are never forgotten
/// (`SourceRateLimiter`): a limited source cannot come back with a full bucket because the
/// table was busy.
///
/// A request is refused, in this order of checks, when it is too short or too long, comes from
/// an unanswerable or reflector port, comes from outside the allowed networks, (authenticated
/// mode) carries a bad HMAC, or exceeds its source's or the total rate. In authenticated mode
/// the HMAC is checked before any source's budget is charged, so a forged packet never spends
/// the budget of the sender it claims to be (issue 39: 400 forged packets/s made 58–73 % of a
/// prober's packets look lost); the total bucket is charged before the HMAC instead, so that
/// a flood cannot make the reflector hash without bound. In unauthenticated mode a source's
/// budget is its endpoint's (address and port) within a wider one per address
/// (`ReflectorConfiguration.addressRateMultiplier`). A reply is exactly as long as its
/// request, never longer: a reflector must not amplify.
public struct ReflectorPolicy {
  public let configuration: ReflectorConfiguration
  public private(set) var counters = ReflectorCounters()
  /// The UDP port the reflector listens on, once bound (`Reflector` sets it): requests from
  /// it are refused, a reflector's own or another one's on the same port number.
  public var localPort: UInt16?
  private var sessions: LRUTable<Endpoint, UInt32>
  /// Per endpoint (address and port): a session's own budget.
  private var sourceLimits: SourceRateLimiter
  /// Per address, all ports together: what one victim can be sent.
  private var addressLimits: SourceRateLimiter
  private var totalBucket: TokenBucket

  /// The TTL stated when the socket could not read the request's (RFC 8762 section 4.3.1 has
  /// no "unknown" value; 255 is the most a sender can have set).
  public static let unknownTTL: UInt8 = 255

  /// `sourceSlotKey` fixes the hash of source addresses to rate-limit slots (tests); random
  /// otherwise.
  public init(
    configuration: ReflectorConfiguration, now: CaptureTime,
    sourceSlotKey: (UInt64, UInt64)? = nil
  ) {
    self.configuration = configuration
    sessions = LRUTable(
      capacity: configuration.maximumSessions, idleSeconds: configuration.sessionIdleSeconds)
    sourceLimits = SourceRateLimiter(
      ratePerSecond: configuration.ratePerSourcePacketsPerSecond,
      burst: configuration.burstPerSourcePackets, key: sourceSlotKey)
    addressLimits = SourceRateLimiter(
      ratePerSecond: configuration.ratePerSourcePacketsPerSecond
        * ReflectorConfiguration.addressRateMultiplier,
      burst: configuration.burstPerSourcePackets * ReflectorConfiguration.addressRateMultiplier,
      key: sourceSlotKey.map { ($0.1, $0.0) })
    totalBucket = TokenBucket(
      ratePerSecond: configuration.rateTotalPacketsPerSecond,
      burst: configuration.burstTotalPackets, now: now)
  }

  /// Decides about `request` from `source` and, to reply, writes the reply into `reply`.
  ///
  /// - Parameters:
  ///   - receivedAt: T2, the wall-clock time the request arrived (for the Receive Timestamp;
  ///     also the placeholder Timestamp until the shell stamps T3).
  ///   - ttl: the request's IP TTL or Hop Limit, nil when unknown (then 255 is sent).
  ///   - isTruncated: the datagram was longer than the receive buffer.
  ///   - now: a monotonic time for rate limits and session expiry (wall-clock steps must not
  ///     refill buckets or expire sessions).
  ///   - reply: a buffer of at least `maximumPacketLength` bytes.
  public mutating func handle(
    _ request: UnsafeRawBufferPointer, from source: Endpoint, receivedAt: CaptureTime,
    ttl: UInt8?, isTruncated: Bool = false, now: CaptureTime,
    reply: UnsafeMutableRawBufferPointer
  ) -> ReflectorDecision {
    counters.packetsReceived += 1
    counters.bytesReceived += request.count
    let decision = decide(
      request, from: source, receivedAt: receivedAt, ttl: ttl, isTruncated: isTruncated,
      now: now, reply: reply)
    switch decision {
    case .reply(let length, _):
      counters.packetsReflected += 1
      counters.bytesReflected += length
    case .refuse(let reason):
      counters.countRefusal(reason)
    }
    counters.sessionsActive = sessions.count
    counters.sessionsEvicted = sessions.evictions
    counters.sessionsExpired = sessions.expirations
    return decision
  }

  /// A reply of `length` bytes the socket would not take: a send error, no longer counted as
  /// reflected.
  public mutating func countSendError(length: Int) {
    counters.sendErrors += 1
    counters.packetsReflected -= 1
    counters.bytesReflected -= length
  }

  /// A request the kernel gave no receive timestamp for.
  public mutating func countUserSpaceTimestamp() {
    counters.userSpaceTimestamps += 1
  }

  private mutating func decide(
    _ request: UnsafeRawBufferPointer, from source: Endpoint, receivedAt: CaptureTime,
    ttl: UInt8?, isTruncated: Bool, now: CaptureTime, reply: UnsafeMutableRawBufferPointer
  ) -> ReflectorDecision {
    let mode = configuration.mode
    guard request.count >= STAMPSenderPacket.baseLength(mode) else {
      return .refuse(.tooShort)
    }
    guard !isTruncated, request.count <= configuration.maximumPacketLength,
      request.count <= reply.count
    else { return .refuse(.oversized) }
    guard source.port != 0, !(configuration.refusesWellKnownSourcePort && source.port == 862)
    else { return .refuse(.badSourcePort) }
    // Never into a loop, and before any budget is spent on it: not from the reflector's own
    // port (itself, or a reflector on the same port number elsewhere), and never another
    // reflector's answer.
    if let localPort, source.port == localPort { return .refuse(.loop) }
    guard !Self.isReflectorPacket(request, mode: mode) else { return .refuse(.reflectedPacket) }
    guard isAllowed(source.address) else { return .refuse(.notAllowed) }
    var key: STAMPKey?
    if mode == .authenticated {
      // The total first: what bounds the hashing. A source's own budget only once the packet
      // is known to be its own.
      guard totalBucket.take(at: now) else { return .refuse(.rateLimited) }
      guard let verified = configuration.keys.first(where: { $0.isValidHMAC(of: request) }) else {
        return .refuse(.badHMAC)
      }
      key = verified
      guard takeSourceTokens(for: source, now: now) else { return .refuse(.rateLimited) }
    } else {
      guard takeSourceTokens(for: source, now: now), totalBucket.take(at: now) else {
        return .refuse(.rateLimited)
      }
    }
    // The length was checked above, so decoding cannot fail; a failure would still only refuse.
    guard let sent = try? STAMPSenderPacket(decoding: request, mode: mode) else {
      return .refuse(.tooShort)
    }

    let (slot, _) = sessions.slot(for: source, now: now) { 0 }
    let sequenceNumber = sessions[slot]
    sessions[slot] = sequenceNumber &+ 1

    let receiveTimestamp = STAMPTimestamp(ntp: receivedAt)
    let packet = STAMPReflectorPacket(
      sequenceNumber: sequenceNumber, timestamp: receiveTimestamp,
      errorEstimate: configuration.errorEstimate, receiveTimestamp: receiveTimestamp,
      senderSequenceNumber: sent.sequenceNumber, senderTimestamp: sent.timestamp,
      senderErrorEstimate: sent.errorEstimate, senderTTL: ttl ?? Self.unknownTTL)
    // Same length as the request: never larger (no amplification), never smaller (symmetric
    // sizes, RFC 8762 section 4.2.1 padding). Unsigned: the HMAC goes on with T3, in `stamp`.
    guard (try? packet.encodeUnsigned(into: reply, totalLength: request.count, mode: mode)) != nil
    else { return .refuse(.oversized) }
    return .reply(length: request.count, key: key)
  }

  /// Whether `request` is in the reflector's format (RFC 8762 section 4.3) rather than the
  /// sender's (section 4.2): an answer always carries a Receive Timestamp and a Session-Sender
  /// TTL of at least 1 (255 when unknown), where a sender's packet has MBZ octets, zero on
  /// transmission (sections 4.2.1 and 4.2.2; RFC 8972's SSID and TLVs are elsewhere). Section
  /// 4.2.1 has MBZ octets ignored on receipt; answering a packet with both fields set would
  /// answer an answer, so such a packet is refused: one spoofed packet, at most one reply.
  static func isReflectorPacket(_ request: UnsafeRawBufferPointer, mode: STAMPMode) -> Bool {
    let layout = STAMPLayout.reflector(mode)
    guard request.count >= layout.baseLength, request[layout.senderTTL] != 0 else { return false }
    return request.uint64BigEndian(at: layout.receiveTimestamp) != 0
  }

  private func isAllowed(_ address: IPAddress) -> Bool {
    configuration.allowedNetworks.isEmpty
      || configuration.allowedNetworks.contains { $0.contains(address) }
  }

  /// One token from the endpoint's bucket and one from its address's, both or neither (a
  /// refusal by one must not spend the other).
  private mutating func takeSourceTokens(for source: Endpoint, now: CaptureTime) -> Bool {
    guard sourceLimits.conforms(source.address, port: source.port, now: now),
      addressLimits.conforms(source.address, now: now)
    else { return false }
    _ = sourceLimits.take(source.address, port: source.port, now: now)
    _ = addressLimits.take(source.address, now: now)
    return true
  }
}
