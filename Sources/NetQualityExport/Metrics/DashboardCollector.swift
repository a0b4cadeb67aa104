/// What the dashboard file did since the agent started.
public struct DashboardCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .dashboardFailedWritesTotal, .dashboardRotationsTotal, .dashboardRotationFailuresTotal,
  ]

  public var failedWrites: Int64
  public var rotations: Int64
  public var rotationFailures: Int64

  public init(failedWrites: Int64, rotations: Int64, rotationFailures: Int64) {
    self.failedWrites = failedWrites
    self.rotations = rotations
    self.rotationFailures = rotationFailures
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.dashboardFailedWritesTotal)
    out.sample(.dashboardFailedWritesTotal, [], Double(failedWrites))
    out.family(.dashboardRotationsTotal)
    out.sample(.dashboardRotationsTotal, [], Double(rotations))
    out.family(.dashboardRotationFailuresTotal)
    out.sample(.dashboardRotationFailuresTotal, [], Double(rotationFailures))
  }
}

// MARK: The families

extension MetricFamily {
  public static let dashboardFailedWritesTotal = counter(
    "netquality_dashboard_failed_writes_total",
    "Dashboard frames that could not be written whole (a full disk); see the log.")
  public static let dashboardRotationsTotal = counter(
    "netquality_dashboard_rotations_total",
    "Times the dashboard file reached dashboard.max_size_mb and was rotated to <file>.1.")
  public static let dashboardRotationFailuresTotal = counter(
    "netquality_dashboard_rotation_failures_total",
    "Rotations of the dashboard file that failed (a rename or the new file's open), one per "
      + "frame written past the limit meanwhile; see the log.")
}

extension DashboardCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    DashboardCollector(failedWrites: 0, rotations: 0, rotationFailures: 0)
  }
}
