/// Everything the engine's judgement depends on; the agent fills it from YAML, `analyze` from
/// flags and defaults.
public struct EngineConfiguration: Sendable {
  /// The scoring window: the RTC SDKs report every 2 s.
  public var tickIntervalSeconds = 2.0
  /// Addresses that belong to this host: streams from them are tx, to them rx.
  public var localNetworks: [NetworkPrefix] = []
  public var quality = QualityModel()
  public var timers = ConnectionTimers()
  public var alertRules = AlertRule.builtIn
  public var analyzer = StreamAnalyzer.Configuration()

  public init() {}
}
