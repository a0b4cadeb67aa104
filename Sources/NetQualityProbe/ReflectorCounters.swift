/// Why the reflector did not answer a datagram.
public enum ReflectorRefusal: String, CaseIterable, Sendable {
  /// Shorter than the base packet of the reflector's mode (44 or 112 bytes).
  case tooShort = "too_short"
  /// Longer than the configured maximum, or truncated by the receive buffer.
  case oversized
  /// From port 0 (cannot be answered) or the STAMP well-known port 862 (a reflector loop).
  case badSourcePort = "bad_source_port"
  /// From outside the allowed networks.
  case notAllowed = "not_allowed"
  /// Over the per-source or the total rate.
  case rateLimited = "rate_limited"
  /// Authenticated mode: no key gives the packet's HMAC.
  case badHMAC = "bad_hmac"
  /// From the reflector's own port (its own address and port, or another reflector listening
  /// on the same port number): answering would start a loop.
  case loop
  /// In the reflector's format, not the sender's (RFC 8762 sections 4.2 and 4.3): another
  /// reflector's answer, which a reflector never answers.
  case reflectedPacket = "reflected_packet"
}

/// What a reflector has done since it started.
public struct ReflectorCounters: Sendable, Hashable {
  public var packetsReceived = 0
  public var bytesReceived = 0
  public var packetsReflected = 0
  public var bytesReflected = 0
  /// Refused datagrams, one count per `ReflectorRefusal` (plain fields, so counting never
  /// copies or allocates).
  public var refusedTooShort = 0
  public var refusedOversized = 0
  public var refusedBadSourcePort = 0
  public var refusedNotAllowed = 0
  public var refusedRateLimited = 0
  public var refusedBadHMAC = 0
  public var refusedLoop = 0
  public var refusedReflectedPacket = 0
  /// Replies the socket would not take (a full send buffer, an unreachable route).
  public var sendErrors = 0
  /// Datagrams stamped in user space because the kernel gave no receive timestamp.
  public var userSpaceTimestamps = 0
  public var sessionsActive = 0
  public var sessionsEvicted = 0
  public var sessionsExpired = 0

  public init() {}

  public func refused(_ reason: ReflectorRefusal) -> Int {
    switch reason {
    case .tooShort: refusedTooShort
    case .oversized: refusedOversized
    case .badSourcePort: refusedBadSourcePort
    case .notAllowed: refusedNotAllowed
    case .rateLimited: refusedRateLimited
    case .badHMAC: refusedBadHMAC
    case .loop: refusedLoop
    case .reflectedPacket: refusedReflectedPacket
    }
  }

  mutating func countRefusal(_ reason: ReflectorRefusal) {
    switch reason {
    case .tooShort: refusedTooShort += 1
    case .oversized: refusedOversized += 1
    case .badSourcePort: refusedBadSourcePort += 1
    case .notAllowed: refusedNotAllowed += 1
    case .rateLimited: refusedRateLimited += 1
    case .badHMAC: refusedBadHMAC += 1
    case .loop: refusedLoop += 1
    case .reflectedPacket: refusedReflectedPacket += 1
    }
  }

  /// One line for the log at exit: `received 3 packets (132 bytes), reflected 2 (88 bytes);
  /// refused too_short=1 oversized=0 …; send_errors=0 sessions=1 evicted=0 expired=0`.
  public var summary: String {
    let refusals = ReflectorRefusal.allCases.map { "\($0.rawValue)=\(refused($0))" }
      .joined(separator: " ")
    return "received \(packetsReceived) packets (\(bytesReceived) bytes), reflected "
      + "\(packetsReflected) (\(bytesReflected) bytes); refused \(refusals); "
      + "send_errors=\(sendErrors) user_space_timestamps=\(userSpaceTimestamps) "
      + "sessions=\(sessionsActive) evicted=\(sessionsEvicted) expired=\(sessionsExpired)"
  }
}
