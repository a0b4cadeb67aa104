/// Whether the configuration last loaded (at the start or on SIGHUP), and when it last did.
public struct ConfigurationCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .configLastReloadSuccessful, .configLastReloadSuccessTimestampSeconds,
  ]

  public var lastReloadSuccessful: Bool
  /// When the configuration last loaded successfully, Unix time; nil: not yet.
  public var lastReloadSuccessTime: Double?

  public init(lastReloadSuccessful: Bool, lastReloadSuccessTime: Double?) {
    self.lastReloadSuccessful = lastReloadSuccessful
    self.lastReloadSuccessTime = lastReloadSuccessTime
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.configLastReloadSuccessful)
    out.sample(.configLastReloadSuccessful, [], lastReloadSuccessful ? 1 : 0)
    if let lastReloadSuccessTime {
      out.family(.configLastReloadSuccessTimestampSeconds)
      out.sample(.configLastReloadSuccessTimestampSeconds, [], lastReloadSuccessTime)
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let configLastReloadSuccessful = gauge(
    "netquality_config_last_reload_successful",
    "Whether the last configuration load (start or SIGHUP) succeeded.")
  public static let configLastReloadSuccessTimestampSeconds = gauge(
    "netquality_config_last_reload_success_timestamp_seconds",
    "When the configuration was last loaded successfully, Unix time.")
}

extension ConfigurationCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    ConfigurationCollector(lastReloadSuccessful: true, lastReloadSuccessTime: 1_767_225_600)
  }
}
