import NetQualityCore

extension AgentConfiguration {
  /// The engine's settings from the agent's: the one mapping, used when the agent starts and
  /// on every reload, so a reload can neither forget a setting nor apply it differently.
  /// `interfaceNetworks` are the capture interfaces' addresses, the local networks when the
  /// configuration names none.
  public func engineConfiguration(interfaceNetworks: [NetworkPrefix]) -> EngineConfiguration {
    var result = engine
    result.localNetworks = localNetworks.isEmpty ? interfaceNetworks : localNetworks
    result.peerGroups = peerGroups.map { ($0.name, $0.networks) }
    // A peer given up stays (in metrics, API and dashboard) for the grace period, and then
    // its streams are forgotten with it: one timer for both.
    result.forgetAfterTimeoutSeconds = peerGraceSeconds
    return result
  }
}
