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
    out.family(.dashboardFailedWritesTotal)
    out.sample(.dashboardFailedWritesTotal, [], Double(dashboard.failedWrites))
    out.family(.dashboardRotationsTotal)
    out.sample(.dashboardRotationsTotal, [], Double(dashboard.rotations))
    out.family(.dashboardRotationFailuresTotal)
    out.sample(
      .dashboardRotationFailuresTotal, [], Double(dashboard.rotationFailures))
  }
}
