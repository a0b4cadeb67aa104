/// One alert: a rule that held on a peer, from firing until resolved.
public struct Alert: Sendable, Equatable {
  public enum State: String, Sendable, Codable {
    case firing, resolved
  }

  /// Stable for the alert's life: rule, labels and start time.
  public var id: String
  public var rule: String
  public var severity: AlertRule.Severity
  /// peer, and direction where the rule has one.
  public var labels: [String: String]
  public var state: State
  public var start: CaptureTime
  public var end: CaptureTime?
  /// One line for logs and dashboards.
  public var summary: String

  public init(
    id: String, rule: String, severity: AlertRule.Severity, labels: [String: String],
    state: State, start: CaptureTime, end: CaptureTime? = nil, summary: String
  ) {
    self.id = id
    self.rule = rule
    self.severity = severity
    self.labels = labels
    self.state = state
    self.start = start
    self.end = end
    self.summary = summary
  }
}
