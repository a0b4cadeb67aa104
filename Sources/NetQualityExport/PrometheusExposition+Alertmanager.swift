import NetQualityCore

extension PrometheusExposition {
  /// What the Alertmanager notifier did since the agent started.
  public struct AlertmanagerFigures: Sendable, Equatable {
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
  }

  /// Named after Prometheus' own notifier metrics (`prometheus_notifications_*`).
  func alertmanagerMetrics(into out: inout Writer) {
    guard let alertmanager else { return }
    let prefix = "netquality_alertmanager_"
    out.family(
      prefix + "notifications_sent_total", .counter,
      "Alerts (firing, resent or resolved) an Alertmanager accepted.")
    for target in alertmanager.targets {
      out.sample(
        prefix + "notifications_sent_total", [("alertmanager", target.url)], Double(target.sent))
    }
    out.family(
      prefix + "notifications_failed_total", .counter,
      "Alerts in requests to an Alertmanager that failed (no answer in time, an error status); "
        + "retried with backoff while no Alertmanager accepts them.")
    for target in alertmanager.targets {
      out.sample(
        prefix + "notifications_failed_total", [("alertmanager", target.url)],
        Double(target.failed))
    }
    out.family(
      prefix + "notifications_dropped_total", .counter,
      "Alerts given up: queue_full (the oldest, when the queue was full), rejected (refused as "
        + "invalid by every Alertmanager).")
    out.sample(
      prefix + "notifications_dropped_total", [("reason", "queue_full")],
      Double(alertmanager.droppedQueueFull))
    out.sample(
      prefix + "notifications_dropped_total", [("reason", "rejected")],
      Double(alertmanager.droppedRejected))
    out.family(prefix + "queue_length", .gauge, "Alerts waiting to be sent.")
    out.sample(prefix + "queue_length", [], Double(alertmanager.queueLength))
    out.family(prefix + "queue_capacity", .gauge, "Alerts the queue holds at most.")
    out.sample(prefix + "queue_capacity", [], Double(alertmanager.queueCapacity))
    out.family(
      prefix + "active_alerts", .gauge,
      "Firing alerts Alertmanager is being told of (and resent every resend interval).")
    out.sample(prefix + "active_alerts", [], Double(alertmanager.activeAlerts))
    out.family(
      prefix + "up", .gauge,
      "Whether an Alertmanager accepted the last request sent to it (absent before the first).")
    for target in alertmanager.targets {
      if let up = target.up {
        out.sample(prefix + "up", [("alertmanager", target.url)], up ? 1 : 0)
      }
    }
    out.family(
      prefix + "request_duration_seconds", .histogram,
      "Time from connecting to an Alertmanager to its answer (or the timeout), per request.")
    for target in alertmanager.targets {
      out.histogram(
        prefix + "request_duration_seconds", [("alertmanager", target.url)],
        target.requestSeconds)
    }
  }
}
