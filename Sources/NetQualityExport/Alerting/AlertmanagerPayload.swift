import NetQualityCore

/// One alert as Alertmanager's v2 API takes it (`postableAlert` in
/// https://github.com/prometheus/alertmanager/blob/main/api/v2/openapi.yaml): labels that
/// identify it, annotations that describe it, when it started and until when it holds.
/// Alertmanager keeps a firing alert until `endsAt` and treats one whose `endsAt` has passed
/// as resolved, which is how a resolution is sent.
public struct AlertNotification: Sendable, Equatable {
  /// The engine's alert id (rule, peer, start): what the notifier's queue keeps one of.
  public var key: String
  public var labels: [String: String]
  public var annotations: [String: String]
  public var startsAt: CaptureTime
  public var endsAt: CaptureTime
  public var generatorURL: String

  public init(
    key: String, labels: [String: String], annotations: [String: String], startsAt: CaptureTime,
    endsAt: CaptureTime, generatorURL: String
  ) {
    self.key = key
    self.labels = labels
    self.annotations = annotations
    self.startsAt = startsAt
    self.endsAt = endsAt
    self.generatorURL = generatorURL
  }

  /// Whether Alertmanager reads it as resolved at `time` (its end has come).
  public func isResolved(at time: CaptureTime) -> Bool { endsAt <= time }
}

/// Builds Alertmanager notifications from the engine's alerts and the JSON body of
/// `POST /api/v2/alerts`.
public enum AlertmanagerPayload {
  /// What every alert of this agent carries besides its own labels.
  public struct Context: Sendable, Equatable {
    /// `instance`, `job` and the configured `alertmanager.labels`.
    public var labels: [String: String]
    /// Where an operator looks next: the agent's alert list.
    public var generatorURL: String
    /// The rules in effect, to describe each alert's condition.
    public var rules: [AlertRule]
    /// The tick interval, to say how long `for_ticks` is.
    public var tickIntervalSeconds: Double
    /// The runbook (`alerts.runbook_url`): each alert's `runbook_url` is its section there,
    /// as in the rules that forward the same alerts through Prometheus.
    public var runbookURL: String

    public init(
      labels: [String: String], generatorURL: String, rules: [AlertRule],
      tickIntervalSeconds: Double, runbookURL: String = AgentAlertRules.defaultRunbookURL
    ) {
      self.labels = labels
      self.generatorURL = generatorURL
      self.rules = rules
      self.tickIntervalSeconds = tickIntervalSeconds
      self.runbookURL = runbookURL
    }
  }

  /// The notification of `alert`, holding until `endsAt`: a firing alert's end a few resend
  /// intervals ahead, a resolved one's its resolution time.
  public static func notification(
    _ alert: Alert, endsAt: CaptureTime, context: Context
  ) -> AlertNotification {
    var labels = context.labels
    for (name, value) in alert.labels where !value.isEmpty { labels[name] = value }
    labels["alertname"] = alert.rule
    labels["severity"] = alert.severity.rawValue
    let annotations = [
      "summary": alert.summary,
      "description": description(alert, context: context),
      "runbook_url": AgentAlertRules.runbookURL(for: alert.rule, base: context.runbookURL),
    ]
    return AlertNotification(
      key: alert.id, labels: labels, annotations: annotations, startsAt: alert.start,
      // Alertmanager refuses an alert that ends before it starts.
      endsAt: max(endsAt, alert.start), generatorURL: context.generatorURL)
  }

  /// The condition behind the alert, for the `description` annotation: the rule's comparison
  /// and how long it had to hold, or, for the agent's own alerts (no rule), what they are.
  static func description(_ alert: Alert, context: Context) -> String {
    let since = "since \(alert.start.rfc3339)"
    guard let rule = context.rules.first(where: { $0.name == alert.rule }) else {
      return "\(alert.summary) (\(since)); raised by the agent itself, not by a peer rule."
    }
    var subject = alert.labels["peer"].map { "peer \($0)" } ?? "the agent"
    if let direction = alert.labels["direction"] { subject += " (\(direction))" }
    return "Rule \(rule.name): "
      + AgentAlertRules.condition(rule, tickIntervalSeconds: context.tickIntervalSeconds)
      + ", \(rule.severity.rawValue), holds for \(subject) \(since)."
  }

  /// The request body: a JSON array of alerts, labels and annotations in name order.
  public static func body(_ notifications: [AlertNotification]) -> String {
    func strings(_ map: [String: String]) -> JSONValue {
      .object(map.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }
    return JSONValue.array(
      notifications.map { notification in
        .object([
          ("labels", strings(notification.labels)),
          ("annotations", strings(notification.annotations)),
          ("startsAt", .string(notification.startsAt.rfc3339)),
          ("endsAt", .string(notification.endsAt.rfc3339)),
          ("generatorURL", .string(notification.generatorURL)),
        ])
      }
    ).text
  }
}
