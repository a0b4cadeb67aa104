/// The agent's build, the first family of `/metrics`: Prometheus' own `*_build_info`
/// convention (prometheus/common version collector: version, revision, and the language's
/// version as `goversion`; here `swiftversion`).
public struct BuildInfoCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [.buildInfo]

  public var version: String
  /// The git commit built, "unknown" when built outside a checkout.
  public var revision: String
  public var swiftVersion: String

  public init(version: String, revision: String, swiftVersion: String) {
    self.version = version
    self.revision = revision
    self.swiftVersion = swiftVersion
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.buildInfo)
    out.sample(
      .buildInfo,
      [("revision", revision), ("swiftversion", swiftVersion), ("version", version)], 1)
  }
}

// MARK: The families

extension MetricFamily {
  public static let buildInfo = gauge(
    "netquality_build_info", labels: ["revision", "swiftversion", "version"],
    "Constant 1, labeled by the version, git revision and Swift version of the build.")
}

extension BuildInfoCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    BuildInfoCollector(version: "test", revision: "abc", swiftVersion: "6.3")
  }
}
