import NetQualityCore

extension PrometheusExposition {
  /// What a probe sender refused or could not send, per target.
  public struct ProbeSenderFigures: Sendable, Equatable {
    public var target: String
    /// Answers refused, by reason (foreign, malformed, bad_hmac).
    public var refused: [(reason: String, count: Int64)]
    /// Probes not sent, by reason (loop_late, send_buffer_full, send_error).
    public var missed: [(reason: String, count: Int64)]

    public init(
      target: String, refused: [(reason: String, count: Int64)],
      missed: [(reason: String, count: Int64)]
    ) {
      self.target = target
      self.refused = refused
      self.missed = missed
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.target == rhs.target && lhs.refused.elementsEqual(rhs.refused, by: ==)
        && lhs.missed.elementsEqual(rhs.missed, by: ==)
    }
  }

  /// What the reflector did since the agent started.
  public struct ReflectorFigures: Sendable, Equatable {
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
  }

  func probeSenderMetrics(into out: inout Writer) {
    guard !probeSenders.isEmpty else { return }
    out.family(.probeAnswersRefusedTotal)
    for sender in probeSenders {
      for (reason, count) in sender.refused {
        out.sample(
          .probeAnswersRefusedTotal,
          [("target", sender.target), ("reason", reason)], Double(count))
      }
    }
    out.family(.probeSendsMissedTotal)
    for sender in probeSenders {
      for (reason, count) in sender.missed {
        out.sample(
          .probeSendsMissedTotal, [("target", sender.target), ("reason", reason)],
          Double(count))
      }
    }
  }

  func reflectorMetrics(into out: inout Writer) {
    guard let reflector else { return }
    for (family, value) in [
      (MetricFamily.reflectorReceivedPacketsTotal, reflector.receivedPackets),
      (.reflectorReceivedBytesTotal, reflector.receivedBytes),
      (.reflectorReflectedPacketsTotal, reflector.reflectedPackets),
      (.reflectorReflectedBytesTotal, reflector.reflectedBytes),
      (.reflectorSendErrorsTotal, reflector.sendErrors),
      (.reflectorUserSpaceTimestampsTotal, reflector.userSpaceTimestamps),
    ] {
      out.family(family)
      out.sample(family, [], Double(value))
    }
    out.family(.reflectorRefusedTotal)
    for (reason, count) in reflector.refused {
      out.sample(.reflectorRefusedTotal, [("reason", reason)], Double(count))
    }
    out.family(.reflectorSessions)
    out.sample(.reflectorSessions, [], Double(reflector.sessions))
  }
}
