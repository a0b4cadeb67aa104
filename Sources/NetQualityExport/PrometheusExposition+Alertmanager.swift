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
    out.family(.alertmanagerNotificationsSentTotal)
    for target in alertmanager.targets {
      out.sample(
        .alertmanagerNotificationsSentTotal, [("alertmanager", target.url)], Double(target.sent))
    }
    out.family(.alertmanagerNotificationsFailedTotal)
    for target in alertmanager.targets {
      out.sample(
        .alertmanagerNotificationsFailedTotal, [("alertmanager", target.url)],
        Double(target.failed))
    }
    out.family(.alertmanagerNotificationsDroppedTotal)
    out.sample(
      .alertmanagerNotificationsDroppedTotal, [("reason", "queue_full")],
      Double(alertmanager.droppedQueueFull))
    out.sample(
      .alertmanagerNotificationsDroppedTotal, [("reason", "rejected")],
      Double(alertmanager.droppedRejected))
    out.family(.alertmanagerQueueLength)
    out.sample(.alertmanagerQueueLength, [], Double(alertmanager.queueLength))
    out.family(.alertmanagerQueueCapacity)
    out.sample(.alertmanagerQueueCapacity, [], Double(alertmanager.queueCapacity))
    out.family(.alertmanagerActiveAlerts)
    out.sample(.alertmanagerActiveAlerts, [], Double(alertmanager.activeAlerts))
    out.family(.alertmanagerUp)
    for target in alertmanager.targets {
      if let up = target.up {
        out.sample(.alertmanagerUp, [("alertmanager", target.url)], up ? 1 : 0)
      }
    }
    out.family(.alertmanagerRequestDurationSeconds)
    for target in alertmanager.targets {
      out.histogram(
        .alertmanagerRequestDurationSeconds, [("alertmanager", target.url)],
        target.requestSeconds)
    }
  }
}
