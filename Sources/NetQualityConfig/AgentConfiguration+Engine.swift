import NetQualityCore

extension AgentConfiguration {
  /// The engine's settings from the agent's: the one mapping, used when the agent starts and
  /// on every reload, so a reload can neither forget a setting nor apply it differently.
  /// `interfaceNetworks` are the capture interfaces' addresses, the local networks when the
  /// configuration names none.
  public func engineConfiguration(interfaceNetworks: [NetworkPrefix]) -> EngineConfiguration {
    var result = engine
    result.localNetworks = localNetworks.isEmpty ? interfaceNetworks : localNetworks
    // A probe target's own name first: it names that address even inside a group.
    result.peerGroups =
      probes.compactMap { probe in
        probe.name.map { ($0, [NetworkPrefix(address: probe.target.address)]) }
      } + peerGroups.map { ($0.name, $0.networks) }
    // Our own probes and reflector answers are measured by the probe sessions, not the capture.
    result.analyzer.probeTraffic = ProbeTrafficFilter(
      endpoints: probes.map(\.target) + (reflector.enabled ? [reflector.listen] : []))
    // A peer given up stays (in metrics, API and dashboard) for the grace period, and then
    // its streams are forgotten with it: one timer for both.
    result.forgetAfterTimeoutSeconds = peerGraceSeconds
    result.calls.userMasking = calls.masking
    return result
  }
}
