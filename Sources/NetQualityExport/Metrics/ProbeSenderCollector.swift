/// What the probe senders refused or could not send, per target (the probes' measurements are
/// the tick's: `ProbeCollector`). Nothing without a probe sender.
public struct ProbeSenderCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [.probeAnswersRefusedTotal, .probeSendsMissedTotal]

  /// One probe sender's figures.
  public struct Sender: Sendable, Equatable {
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

  public var senders: [Sender]

  public init(senders: [Sender]) {
    self.senders = senders
  }

  public func collect(into out: inout MetricsWriter) {
    guard !senders.isEmpty else { return }
    out.family(.probeAnswersRefusedTotal)
    for sender in senders {
      for (reason, count) in sender.refused {
        out.sample(
          .probeAnswersRefusedTotal, [("target", sender.target), ("reason", reason)],
          Double(count))
      }
    }
    out.family(.probeSendsMissedTotal)
    for sender in senders {
      for (reason, count) in sender.missed {
        out.sample(
          .probeSendsMissedTotal, [("target", sender.target), ("reason", reason)],
          Double(count))
      }
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let probeAnswersRefusedTotal = counter(
    "netquality_probe_answers_refused_total", labels: ["target", "reason"],
    "Answers to our probes not taken, by reason: foreign (from another address), malformed, "
      + "bad_hmac.")
  public static let probeSendsMissedTotal = counter(
    "netquality_probe_sends_missed_total", labels: ["target", "reason"],
    "Probes that did not leave, by reason: loop_late (the agent woke too late; not counted "
      + "as sent), send_buffer_full (not counted as sent), send_error (no route, a local "
      + "reject: counted as sent and lost).")
}
