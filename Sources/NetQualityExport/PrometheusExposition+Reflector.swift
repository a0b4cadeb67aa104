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
    out.family(
      "netquality_probe_answers_refused_total", .counter,
      "Answers to our probes not taken, by reason: foreign (from another address), malformed, "
        + "bad_hmac.")
    for sender in probeSenders {
      for (reason, count) in sender.refused {
        out.sample(
          "netquality_probe_answers_refused_total",
          [("target", sender.target), ("reason", reason)], Double(count))
      }
    }
    out.family(
      "netquality_probe_sends_missed_total", .counter,
      "Probes that did not leave, by reason: loop_late (the agent woke too late; not counted "
        + "as sent), send_buffer_full (not counted as sent), send_error (no route, a local "
        + "reject: counted as sent and lost).")
    for sender in probeSenders {
      for (reason, count) in sender.missed {
        out.sample(
          "netquality_probe_sends_missed_total", [("target", sender.target), ("reason", reason)],
          Double(count))
      }
    }
  }

  func reflectorMetrics(into out: inout Writer) {
    guard let reflector else { return }
    for (name, help, value) in [
      (
        "netquality_reflector_received_packets_total", "STAMP requests the reflector read.",
        reflector.receivedPackets
      ),
      (
        "netquality_reflector_received_bytes_total", "UDP payload bytes of those requests.",
        reflector.receivedBytes
      ),
      (
        "netquality_reflector_reflected_packets_total", "Answers sent.",
        reflector.reflectedPackets
      ),
      (
        "netquality_reflector_reflected_bytes_total",
        "UDP payload bytes answered: never more than received (no amplification).",
        reflector.reflectedBytes
      ),
      (
        "netquality_reflector_send_errors_total",
        "Answers the socket would not take (not counted as reflected).", reflector.sendErrors
      ),
      (
        "netquality_reflector_user_space_timestamps_total",
        "Requests timed after the receive call, the kernel giving no timestamp.",
        reflector.userSpaceTimestamps
      ),
    ] {
      out.family(name, .counter, help)
      out.sample(name, [], Double(value))
    }
    out.family(
      "netquality_reflector_refused_total", .counter,
      "Requests not answered, by reason: too_short, oversized, bad_source_port, not_allowed, "
        + "rate_limited, bad_hmac.")
    for (reason, count) in reflector.refused {
      out.sample("netquality_reflector_refused_total", [("reason", reason)], Double(count))
    }
    out.family("netquality_reflector_sessions", .gauge, "Senders the reflector keeps state for.")
    out.sample("netquality_reflector_sessions", [], Double(reflector.sessions))
  }
}
