/// What a reload (SIGHUP) does with each key: the declarations of `ConfigurationSchema`, the one
/// table the reload, its log, the status API and the documentation follow.
public enum ConfigurationKeys {
  public typealias Effect = ConfigurationKey.Effect
  public typealias Key = ConfigurationKey

  /// Every key, in the order of config/netquality.yaml.
  public static var all: [Key] { ConfigurationSchema.keys }

  /// The keys whose values differ between two configurations, in file order.
  public static func changed(from old: AgentConfiguration, to new: AgentConfiguration) -> [Key] {
    all.filter { $0.differs(old, new) }
  }

  /// What a reload puts into effect: `loaded` with every restart-only key at its `started`
  /// value, and the restart-only keys whose value `loaded` changed (waiting for a restart).
  public static func keepStarted(_ started: AgentConfiguration, loaded: AgentConfiguration) -> (
    effective: AgentConfiguration, restartPending: [String]
  ) {
    var effective = loaded
    var pending: [String] = []
    for key in all where key.effect == .restart {
      if key.differs(started, loaded) { pending.append(key.name) }
      key.copy(started, &effective)
    }
    return (effective, pending)
  }
}
