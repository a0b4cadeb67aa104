/// A condition on a peer that raises an alert after it held for `forTicks` ticks in a row.
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

    /// The direction label of alerts on this metric.
    public var direction: String? {
      switch self {
      case .rxQuality, .rxLossRatio, .rxJitterMilliseconds, .rxMeanOpinionScore: "rx"
      case .txQuality, .txLossRatio, .txJitterMilliseconds, .txMeanOpinionScore: "tx"
      case .roundTripMilliseconds, .connectionState: nil
      }
    }
  }

  public enum Comparison: String, Sendable {
    case greater = ">"
    case greaterOrEqual = ">="
    case less = "<"
    case lessOrEqual = "<="
    case equal = "=="

    func holds(_ value: Double, _ threshold: Double) -> Bool {
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
  public var forTicks: Int
  public var severity: Severity

  public init(
    name: String, metric: Metric, comparison: Comparison, threshold: Double, forTicks: Int,
    severity: Severity
  ) {
    self.name = name
    self.metric = metric
    self.comparison = comparison
    self.threshold = threshold
    self.forTicks = forTicks
    self.severity = severity
  }

  /// The built-in rules: a peer bad or worse for 3 ticks (6 s) in either direction, and a peer
  /// disconnected or timed out (at once).
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
  ]
}
