extension PrometheusExposition {
  /// What the dashboard file did since the agent started.
  public struct DashboardFigures: Sendable, Equatable {
    public var failedWrites: Int64
    public var rotations: Int64
    public var rotationFailures: Int64

    public init(failedWrites: Int64, rotations: Int64, rotationFailures: Int64) {
      self.failedWrites = failedWrites
      self.rotations = rotations
      self.rotationFailures = rotationFailures
    }
  }

  func dashboardMetrics(into out: inout Writer) {
    guard let dashboard else { return }
    out.family(
      "netquality_dashboard_failed_writes_total", .counter,
      "Dashboard frames that could not be written whole (a full disk); see the log.")
    out.sample("netquality_dashboard_failed_writes_total", [], Double(dashboard.failedWrites))
    out.family(
      "netquality_dashboard_rotations_total", .counter,
      "Times the dashboard file reached dashboard.max_size_mb and was rotated to <file>.1.")
    out.sample("netquality_dashboard_rotations_total", [], Double(dashboard.rotations))
    out.family(
      "netquality_dashboard_rotation_failures_total", .counter,
      "Rotations of the dashboard file that failed (a rename or the new file's open), one per "
        + "frame written past the limit meanwhile; see the log.")
    out.sample(
      "netquality_dashboard_rotation_failures_total", [], Double(dashboard.rotationFailures))
  }
}
