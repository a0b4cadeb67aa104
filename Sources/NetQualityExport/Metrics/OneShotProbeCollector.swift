/// What one `GET /probe?target=…` measured: a few STAMP probes sent at request time, as
/// blackbox_exporter answers a probe request — `probe_success` and `probe_duration_seconds`
/// under its names, so that its dashboards and alerts (`probe_success == 0`) work unchanged,
/// and the measurement's families with a `target` label. Not part of `/metrics` (nor of
/// `MetricCatalogue`): its own exposition, one per request (docs/probes.md).
public struct OneShotProbeCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .oneShotSuccess, .oneShotDurationSeconds, .oneShotSent, .oneShotReceived, .oneShotLost,
    .oneShotLossRatio, .oneShotRTTSeconds,
  ]

  /// The quantiles of the round trip reported (nearest rank over the answers).
  public static let quantiles = [0.0, 0.5, 0.9, 0.99, 1.0]

  public var target: String
  public var durationSeconds: Double
  /// Probes sent and settled (answered or past their deadline).
  public var sent: Int64
  public var received: Int64
  /// Lost probes by direction (RFC 8762 section 4.3.2: the reflector's sequence numbers);
  /// those after the last answer have no later answer to tell: `unknown`.
  public var lostForward: Int64
  public var lostBackward: Int64
  public var lostUnknown: Int64
  /// Every answer's round trip, (T4 − T1) − (T3 − T2), seconds.
  public var roundTripsSeconds: [Double]

  public init(
    target: String, durationSeconds: Double, sent: Int64, received: Int64, lostForward: Int64,
    lostBackward: Int64, lostUnknown: Int64, roundTripsSeconds: [Double]
  ) {
    self.target = target
    self.durationSeconds = durationSeconds
    self.sent = sent
    self.received = received
    self.lostForward = lostForward
    self.lostBackward = lostBackward
    self.lostUnknown = lostUnknown
    self.roundTripsSeconds = roundTripsSeconds
  }

  /// The value at `quantile` of `sorted` by nearest rank (the smallest value with at least
  /// that share of the values at or below it); nil when empty.
  public static func nearestRank(_ quantile: Double, of sorted: [Double]) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((quantile * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
  }

  public func collect(into out: inout MetricsWriter) {
    let labels = [("target", target)]
    out.family(.oneShotSuccess)
    out.sample(.oneShotSuccess, [], received > 0 ? 1 : 0)
    out.family(.oneShotDurationSeconds)
    out.sample(.oneShotDurationSeconds, [], durationSeconds)
    out.family(.oneShotSent)
    out.sample(.oneShotSent, labels, Double(sent))
    out.family(.oneShotReceived)
    out.sample(.oneShotReceived, labels, Double(received))
    out.family(.oneShotLost)
    for (direction, lost) in [
      ("forward", lostForward), ("backward", lostBackward), ("unknown", lostUnknown),
    ] {
      out.sample(.oneShotLost, labels + [("direction", direction)], Double(lost))
    }
    out.family(.oneShotLossRatio)
    if sent > 0 {
      out.sample(
        .oneShotLossRatio, labels,
        Double(lostForward + lostBackward + lostUnknown) / Double(sent))
    }
    out.family(.oneShotRTTSeconds)
    let sorted = roundTripsSeconds.sorted()
    out.summary(
      .oneShotRTTSeconds, labels,
      quantiles: Self.quantiles.map { ($0, Self.nearestRank($0, of: sorted) ?? .nan) },
      sum: sorted.reduce(0, +), count: sorted.count)
  }
}

// MARK: The families

extension MetricFamily {
  public static let oneShotSuccess = gauge(
    "probe_success", "Whether the probe was answered (1) or not (0), as blackbox_exporter says.")
  public static let oneShotDurationSeconds = gauge(
    "probe_duration_seconds",
    "How long the probe took, from the first send to the last answer "
      + "or deadline.")
  public static let oneShotSent = gauge(
    "netquality_oneshot_probes_sent", labels: ["target"],
    "STAMP probes this request sent and settled.")
  public static let oneShotReceived = gauge(
    "netquality_oneshot_probes_received", labels: ["target"],
    "First answers to this request's probes in time.")
  public static let oneShotLost = gauge(
    "netquality_oneshot_probes_lost", labels: ["target", "direction"],
    "This request's probes lost, by direction: forward, backward (RFC 8762 4.3.2, the "
      + "reflector's sequence numbers), unknown (after the last answer).")
  public static let oneShotLossRatio = gauge(
    "netquality_oneshot_loss_ratio", labels: ["target"],
    "This request's probes lost, of those sent.")
  public static let oneShotRTTSeconds = summary(
    "netquality_oneshot_rtt_seconds", labels: ["target"],
    "Round trip of this request's answers, (T4 - T1) - (T3 - T2) (RFC 8762 section 4), by "
      + "nearest rank (quantile 0: the smallest, 1: the largest).")
}
