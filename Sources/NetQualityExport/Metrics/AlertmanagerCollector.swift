import NetQualityCore

/// What the Alertmanager notifier did since the agent started.
public struct AlertmanagerCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .alertmanagerNotificationsSentTotal, .alertmanagerNotificationsFailedTotal,
    .alertmanagerNotificationsDroppedTotal, .alertmanagerQueueLength, .alertmanagerQueueCapacity,
    .alertmanagerActiveAlerts, .alertmanagerUp, .alertmanagerRequestDurationSeconds,
  ]

  /// One Alertmanager's figures.
  public struct Target: Sendable, Equatable {
    /// Its base URL, the `alertmanager` label.
    public var url: String
    public var sent: Int64
    public var failed: Int64
    /// Whether its last request was accepted; nil before the first.
    public var up: Bool?
    public var requestSeconds: DelayHistogram

    public init(
      url: String, sent: Int64, failed: Int64, up: Bool?, requestSeconds: DelayHistogram
    ) {
      self.url = url
      self.sent = sent
      self.failed = failed
      self.up = up
      self.requestSeconds = requestSeconds
    }
  }

  public var targets: [Target]
  public var queueLength: Int
  public var queueCapacity: Int
  public var droppedQueueFull: Int64
  public var droppedRejected: Int64
  public var activeAlerts: Int

  public init(
    targets: [Target], queueLength: Int, queueCapacity: Int, droppedQueueFull: Int64,
    droppedRejected: Int64, activeAlerts: Int
  ) {
    self.targets = targets
    self.queueLength = queueLength
    self.queueCapacity = queueCapacity
    self.droppedQueueFull = droppedQueueFull
    self.droppedRejected = droppedRejected
    self.activeAlerts = activeAlerts
  }

  /// Named after Prometheus' own notifier metrics (`prometheus_notifications_*`).
  public func collect(into out: inout MetricsWriter) {
    out.family(.alertmanagerNotificationsSentTotal)
    for target in targets {
      out.sample(
        .alertmanagerNotificationsSentTotal, [("alertmanager", target.url)], Double(target.sent))
    }
    out.family(.alertmanagerNotificationsFailedTotal)
    for target in targets {
      out.sample(
        .alertmanagerNotificationsFailedTotal, [("alertmanager", target.url)],
        Double(target.failed))
    }
    out.family(.alertmanagerNotificationsDroppedTotal)
    out.sample(
      .alertmanagerNotificationsDroppedTotal, [("reason", "queue_full")],
      Double(droppedQueueFull))
    out.sample(
      .alertmanagerNotificationsDroppedTotal, [("reason", "rejected")],
      Double(droppedRejected))
    out.family(.alertmanagerQueueLength)
    out.sample(.alertmanagerQueueLength, [], Double(queueLength))
    out.family(.alertmanagerQueueCapacity)
    out.sample(.alertmanagerQueueCapacity, [], Double(queueCapacity))
    out.family(.alertmanagerActiveAlerts)
    out.sample(.alertmanagerActiveAlerts, [], Double(activeAlerts))
    out.family(.alertmanagerUp)
    for target in targets {
      if let up = target.up {
        out.sample(.alertmanagerUp, [("alertmanager", target.url)], up ? 1 : 0)
      }
    }
    out.family(.alertmanagerRequestDurationSeconds)
    for target in targets {
      out.histogram(
        .alertmanagerRequestDurationSeconds, [("alertmanager", target.url)],
        target.requestSeconds)
    }
  }
}

// MARK: The families (named after Prometheus' own `prometheus_notifications_*`)

extension MetricFamily {
  public static let alertmanagerNotificationsSentTotal = counter(
    "netquality_alertmanager_notifications_sent_total", labels: ["alertmanager"],
    "Alerts (firing, resent or resolved) an Alertmanager accepted.")
  public static let alertmanagerNotificationsFailedTotal = counter(
    "netquality_alertmanager_notifications_failed_total", labels: ["alertmanager"],
    "Alerts in requests to an Alertmanager that failed (no answer in time, an error status); "
      + "retried with backoff while no Alertmanager accepts them.")
  public static let alertmanagerNotificationsDroppedTotal = counter(
    "netquality_alertmanager_notifications_dropped_total", labels: ["reason"],
    "Alerts given up: queue_full (the oldest, when the queue was full), rejected (refused as "
      + "invalid by every Alertmanager).")
  public static let alertmanagerQueueLength = gauge(
    "netquality_alertmanager_queue_length", "Alerts waiting to be sent.")
  public static let alertmanagerQueueCapacity = gauge(
    "netquality_alertmanager_queue_capacity", "Alerts the queue holds at most.")
  public static let alertmanagerActiveAlerts = gauge(
    "netquality_alertmanager_active_alerts",
    "Firing alerts Alertmanager is being told of (and resent every resend interval).")
  public static let alertmanagerUp = gauge(
    "netquality_alertmanager_up", labels: ["alertmanager"],
    "Whether an Alertmanager accepted the last request sent to it (absent before the first).")
  public static let alertmanagerRequestDurationSeconds = histogram(
    "netquality_alertmanager_request_duration_seconds", labels: ["alertmanager"],
    "Time from connecting to an Alertmanager to its answer (or the timeout), per request.")
}

extension AlertmanagerCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    AlertmanagerCollector(
      targets: [
        .init(
          url: "http://127.0.0.1:9093", sent: 5, failed: 1, up: true,
          requestSeconds: DelayHistogram(boundsSeconds: [0.01, 0.1]))
      ], queueLength: 0, queueCapacity: 10_000, droppedQueueFull: 0, droppedRejected: 0,
      activeAlerts: 1)
  }
}
