/// The agent's build, the first family of `/metrics`.
public struct BuildInfoCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [.buildInfo]

  public var version: String

  public init(version: String) {
    self.version = version
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.buildInfo)
    out.sample(.buildInfo, [("version", version)], 1)
  }
}

// MARK: The families

extension MetricFamily {
  public static let buildInfo = gauge(
    "netquality_build_info", labels: ["version"], "Build of the agent; always 1.")
}
