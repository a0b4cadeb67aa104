/// What the reflector did since the agent started.
public struct ReflectorCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .reflectorReceivedPacketsTotal, .reflectorReceivedBytesTotal,
    .reflectorReflectedPacketsTotal, .reflectorReflectedBytesTotal, .reflectorSendErrorsTotal,
    .reflectorUserSpaceTimestampsTotal, .reflectorRefusedTotal, .reflectorSessions,
  ]

  public var receivedPackets: Int64
  public var receivedBytes: Int64
  public var reflectedPackets: Int64
  public var reflectedBytes: Int64
  /// Requests refused, by reason (too_short, oversized, not_allowed, rate_limited, …).
  public var refused: [(reason: String, count: Int64)]
  public var sessions: Int64
  public var userSpaceTimestamps: Int64
  /// Answers the socket would not take (not counted as reflected).
  public var sendErrors: Int64 = 0

  public init(
    receivedPackets: Int64, receivedBytes: Int64, reflectedPackets: Int64,
    reflectedBytes: Int64, refused: [(reason: String, count: Int64)], sessions: Int64,
    userSpaceTimestamps: Int64, sendErrors: Int64 = 0
  ) {
    self.receivedPackets = receivedPackets
    self.receivedBytes = receivedBytes
    self.reflectedPackets = reflectedPackets
    self.reflectedBytes = reflectedBytes
    self.refused = refused
    self.sessions = sessions
    self.userSpaceTimestamps = userSpaceTimestamps
    self.sendErrors = sendErrors
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.receivedPackets, lhs.receivedBytes, lhs.reflectedPackets, lhs.reflectedBytes)
      == (rhs.receivedPackets, rhs.receivedBytes, rhs.reflectedPackets, rhs.reflectedBytes)
      && lhs.refused.elementsEqual(rhs.refused, by: ==)
      && (lhs.sessions, lhs.userSpaceTimestamps, lhs.sendErrors)
        == (rhs.sessions, rhs.userSpaceTimestamps, rhs.sendErrors)
  }

  public func collect(into out: inout MetricsWriter) {
    for (family, value) in [
      (MetricFamily.reflectorReceivedPacketsTotal, receivedPackets),
      (.reflectorReceivedBytesTotal, receivedBytes),
      (.reflectorReflectedPacketsTotal, reflectedPackets),
      (.reflectorReflectedBytesTotal, reflectedBytes),
      (.reflectorSendErrorsTotal, sendErrors),
      (.reflectorUserSpaceTimestampsTotal, userSpaceTimestamps),
    ] {
      out.family(family)
      out.sample(family, [], Double(value))
    }
    out.family(.reflectorRefusedTotal)
    for (reason, count) in refused {
      out.sample(.reflectorRefusedTotal, [("reason", reason)], Double(count))
    }
    out.family(.reflectorSessions)
    out.sample(.reflectorSessions, [], Double(sessions))
  }
}

// MARK: The families

extension MetricFamily {
  public static let reflectorReceivedPacketsTotal = counter(
    "netquality_reflector_received_packets_total", "STAMP requests the reflector read.")
  public static let reflectorReceivedBytesTotal = counter(
    "netquality_reflector_received_bytes_total", "UDP payload bytes of those requests.")
  public static let reflectorReflectedPacketsTotal = counter(
    "netquality_reflector_reflected_packets_total", "Answers sent.")
  public static let reflectorReflectedBytesTotal = counter(
    "netquality_reflector_reflected_bytes_total",
    "UDP payload bytes answered: never more than received (no amplification).")
  public static let reflectorSendErrorsTotal = counter(
    "netquality_reflector_send_errors_total",
    "Answers the socket would not take (not counted as reflected).")
  public static let reflectorUserSpaceTimestampsTotal = counter(
    "netquality_reflector_user_space_timestamps_total",
    "Requests timed after the receive call, the kernel giving no timestamp.")
  public static let reflectorRefusedTotal = counter(
    "netquality_reflector_refused_total", labels: ["reason"],
    "Requests not answered, by reason: too_short, oversized, bad_source_port, not_allowed, "
      + "rate_limited, bad_hmac, loop, reflected_packet.")
  public static let reflectorSessions = gauge(
    "netquality_reflector_sessions", "Senders the reflector keeps state for.")
}

extension ReflectorCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    ReflectorCollector(
      receivedPackets: 5, receivedBytes: 220, reflectedPackets: 5, reflectedBytes: 220,
      refused: [("rate_limited", 0)], sessions: 1, userSpaceTimestamps: 0)
  }
}
