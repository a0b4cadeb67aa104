/// A condition on a peer that raises an alert after it was measured for `forTicks` ticks, and
/// resolves it after `keepFiringForTicks` ticks clear (Prometheus' `for` and `keep_firing_for`):
/// see `AlertEvaluator` for what counts as a tick of either.
public struct AlertRule: Sendable, Equatable {
  public enum Severity: String, Sendable, Codable {
    case info, warning, critical
  }

  /// What a rule looks at on each peer.
  public enum Metric: String, Sendable, CaseIterable {
    case rxQuality = "rx_quality"
    case txQuality = "tx_quality"
    case rxLossRatio = "rx_loss_ratio"
    case txLossRatio = "tx_loss_ratio"
    case rxJitterMilliseconds = "rx_jitter_ms"
    case txJitterMilliseconds = "tx_jitter_ms"
    case roundTripMilliseconds = "rtt_ms"
    case rxMeanOpinionScore = "rx_mos"
    case txMeanOpinionScore = "tx_mos"
    /// The connection state's number (ConnectionState.number).
    case connectionState = "state"
    /// Freezes of the peer's incoming video in the tick's window (webrtc-stats `freezeCount`
    /// at the capture point: docs/media.md); nil for a peer without incoming video.
    case rxVideoFreezes = "rx_video_freezes"
    /// Host-wide, not per peer: the share of the SIP calls ended over `calls.failure_window`
    /// that were never answered, and that failed with a 5xx (nil below
    /// `calls.failure_min_calls` calls).
    case callFailureRatio = "call_failure_ratio"
    case callServerFailureRatio = "call_5xx_ratio"

    /// A figure of the calls, not of a peer.
    public var isAboutCalls: Bool { self == .callFailureRatio || self == .callServerFailureRatio }

    /// Whether the metric is a quality level, which the engine shows damped (`LevelDamper`).
    public var isLevel: Bool { self == .rxQuality || self == .txQuality }

    /// `keep_firing_for_ticks` when a rule gives none. Video freezes: 15 (30 s at 2 s), so
    /// freezes that recur within half a minute are one alert. Levels: 1, as the level shown already
    /// holds a steady impairment (a band better shows after 30 ticks, two after 3), and the
    /// alert resolves when the level shown leaves the rule. States: 1, as the connection
    /// states have their own timers. Other figures: 30 ticks (a minute at 2 s), the level's
    /// one-band hysteresis: a figure scattering around a threshold stays one alert (set
    /// `clear_threshold` for a faster end of a real recovery).
    public var defaultKeepFiringForTicks: Int {
      switch self {
      case .rxQuality, .txQuality, .connectionState: 1
      case .rxVideoFreezes: 15
      default: 30
      }
    }

    /// The direction label of alerts on this metric.
    public var direction: String? {
      switch self {
      case .rxQuality, .rxLossRatio, .rxJitterMilliseconds, .rxMeanOpinionScore, .rxVideoFreezes:
        "rx"
      case .txQuality, .txLossRatio, .txJitterMilliseconds, .txMeanOpinionScore: "tx"
      case .roundTripMilliseconds, .connectionState, .callFailureRatio, .callServerFailureRatio:
        nil
      }
    }
  }

  public enum Comparison: String, Sendable {
    case greater = ">"
    case greaterOrEqual = ">="
    case less = "<"
    case lessOrEqual = "<="
    case equal = "=="

    public func holds(_ value: Double, _ threshold: Double) -> Bool {
      switch self {
      case .greater: value > threshold
      case .greaterOrEqual: value >= threshold
      case .less: value < threshold
      case .lessOrEqual: value <= threshold
      case .equal: value == threshold
      }
    }
  }

  public var name: String
  public var metric: Metric
  public var comparison: Comparison
  public var threshold: Double
  /// Ticks the condition must be measured before the alert fires.
  public var forTicks: Int
  /// Ticks in a row the condition must be clear before a firing alert resolves.
  public var keepFiringForTicks: Int
  /// Optional: a value on the clear side of this (the comparison does not hold against it) is
  /// well clear, and `forTicks` such ticks in a row resolve the alert without waiting
  /// `keepFiringForTicks` (a real recovery ends the alert within seconds).
  public var clearThreshold: Double?
  public var severity: Severity

  public init(
    name: String, metric: Metric, comparison: Comparison, threshold: Double, forTicks: Int,
    keepFiringForTicks: Int? = nil, clearThreshold: Double? = nil, severity: Severity
  ) {
    self.name = name
    self.metric = metric
    self.comparison = comparison
    self.threshold = threshold
    self.forTicks = forTicks
    self.keepFiringForTicks = keepFiringForTicks ?? metric.defaultKeepFiringForTicks
    self.clearThreshold = clearThreshold
    self.severity = severity
  }

  /// A configured rule's `for_ticks` when the file gives none: 6 s at 2 s ticks, so that one
  /// window past a threshold is not a page.
  public static let defaultForTicks = 3

  /// The built-in rules: a peer bad or worse for 3 ticks (6 s) in either direction, resolved
  /// when the level shown is better than bad; a peer disconnected or timed out (at once,
  /// resolved at once); and the peer's incoming video frozen (a freeze in 2 ticks in a row:
  /// one freeze is a moment, freezes that go on are a page; resolved after 30 s without one).
  public static let builtIn: [AlertRule] = [
    AlertRule(
      name: "peer_rx_quality_bad", metric: .rxQuality, comparison: .greaterOrEqual,
      threshold: Double(QualityLevel.bad.rawValue), forTicks: 3, severity: .warning),
    AlertRule(
      name: "peer_tx_quality_bad", metric: .txQuality, comparison: .greaterOrEqual,
      threshold: Double(QualityLevel.bad.rawValue), forTicks: 3, severity: .warning),
    AlertRule(
      name: "peer_disconnected", metric: .connectionState, comparison: .equal,
      threshold: Double(ConnectionState.disconnected.number), forTicks: 1, severity: .critical),
    AlertRule(
      name: "peer_timeout", metric: .connectionState, comparison: .equal,
      threshold: Double(ConnectionState.timeout.number), forTicks: 1, severity: .critical),
    AlertRule(
      name: "video_freezes", metric: .rxVideoFreezes, comparison: .greaterOrEqual,
      threshold: 1, forTicks: 2, severity: .warning),
  ]
}
