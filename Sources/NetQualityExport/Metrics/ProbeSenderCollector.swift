import NetQualityCore

/// What the probe senders refused or could not send, per target, and how late their probes
/// left (the probes' measurements are the tick's: `ProbeCollector`). Nothing without a probe
/// sender.
public struct ProbeSenderCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .probeAnswersRefusedTotal, .probeSendsMissedTotal, .probeSendLatenessSeconds,
  ]

  /// Send lateness: the probe thread wakes on the millisecond (poll(2)), so most probes leave
  /// within 1 ms of their time; past an interval (50 ms at 20/s) a probe is missed instead.
  public static let sendLatenessBoundsSeconds = [
    0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
  ]

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
  /// How late the probes left after their scheduled time, all targets together.
  public var sendLateness: DelayHistogram?

  public init(senders: [Sender], sendLateness: DelayHistogram? = nil) {
    self.senders = senders
    self.sendLateness = sendLateness
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
    if let sendLateness {
      out.family(.probeSendLatenessSeconds)
      out.histogram(.probeSendLatenessSeconds, [], sendLateness)
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let probeAnswersRefusedTotal = counter(
    "netquality_probe_answers_refused_total", labels: ["target", "reason"],
    "Answers to our probes not taken, by reason: foreign (from another address), malformed, "
      + "bad_hmac, unexpected (to no probe we sent: the reflector answered packets spoofed "
      + "with our address; loss meanwhile is possibly spoofed).")
  public static let probeSendsMissedTotal = counter(
    "netquality_probe_sends_missed_total", labels: ["target", "reason"],
    "Probes that did not leave, by reason: loop_late (the agent woke more than an interval "
      + "late; not counted as sent), window_full (too many probes in flight; not counted as "
      + "sent), send_buffer_full (not counted as sent), send_error (no route, a local reject: "
      + "counted as sent and lost).")
  public static let probeSendLatenessSeconds = histogram(
    "netquality_probe_send_lateness_seconds", labels: [],
    "How long after its scheduled time each probe left, all targets together.")
}

extension ProbeSenderCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    ProbeSenderCollector(
      senders: [
        .init(target: "10.9.0.2:862", refused: [("foreign", 0)], missed: [("loop_late", 0)])
      ], sendLateness: DelayHistogram(boundsSeconds: [0.001]))
  }
}
