import NetQualityCore

extension PrometheusExposition {
  /// The fleet's counters (`EngineCounters`): peer-seconds at each level shown, state
  /// transitions, alerts fired — every series from the start at 0, so that `increase()` sees the
  /// first one (https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics).
  func fleetCounters(_ counters: EngineCounters, into out: inout Writer) {
    out.family(.peersQualitySecondsTotal)
    for direction in PeerLevelCounters.Direction.allCases {
      for level in QualityLevel.allCases {
        out.sample(
          .peersQualitySecondsTotal, [("direction", direction.label), ("level", level.name)],
          counters.seconds(direction, level))
      }
    }
    out.family(.peersStateTransitionsTotal)
    for kind in EngineCounters.transitionKinds {
      out.sample(
        .peersStateTransitionsTotal, [("state", kind.rawValue)],
        Double(counters.transitions[kind.rawValue] ?? 0))
    }
    out.family(.alertsFiredTotal)
    for rule in alertRules.sorted(by: { $0.name < $1.name }) {
      out.sample(
        .alertsFiredTotal, [("alertname", rule.name), ("severity", rule.severity)],
        Double(counters.alertsFired[rule.name] ?? 0))
    }
  }

  /// The time at each level shown and the worst level of the last minute, of the peers with
  /// series of their own.
  func peerCounters(_ peers: [PeerSnapshot], into out: inout Writer) {
    out.family(.peerQualitySecondsTotal)
    for peer in peers {
      guard let counters = peerCounters[peer.peer] else { continue }
      for direction in PeerLevelCounters.Direction.allCases {
        for level in QualityLevel.allCases {
          out.sample(
            .peerQualitySecondsTotal,
            [("peer", peer.peer), ("direction", direction.label), ("level", level.name)],
            counters.seconds(direction, level))
        }
      }
    }
    out.family(.peerQualityLevelMax)
    for peer in peers {
      guard let counters = peerCounters[peer.peer] else { continue }
      for direction in PeerLevelCounters.Direction.allCases {
        out.sample(
          .peerQualityLevelMax, [("peer", peer.peer), ("direction", direction.label)],
          Double(counters.worstLevel(direction).rawValue))
      }
    }
  }
}
