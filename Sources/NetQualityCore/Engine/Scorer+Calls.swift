extension Scorer {
  /// The tick's calls (`CallTracker.tick`) and the alert rules on them: the failure ratios of
  /// the SIP calls ended in the window are host-wide figures, evaluated once per tick as alerts
  /// about no peer.
  mutating func tickCalls(
    at now: CaptureTime, interval: Double, harvest: inout StreamHarvest, windows: [StreamWindow],
    facts: [StreamFacts], names: [String]
  ) -> (CallsSnapshot, [EngineEvent]) {
    var journal = SignallingJournal()
    swap(&journal, &harvest.signalling)
    // The tracker is taken out while it reads the scorer (its scoring and configuration).
    var tracker = CallTracker()
    swap(&tracker, &calls)
    let snapshot = tracker.tick(
      at: now, interval: interval, journal: journal, signalling: harvest.signallingCounters,
      windows: windows, facts: facts, names: names, harvest: harvest, scorer: self,
      inputEnded: inputEnded)
    swap(&tracker, &calls)
    guard alerts.rules.contains(where: \.metric.isAboutCalls) || !alerts.firing.isEmpty else {
      return (snapshot, [])
    }
    let changes = alerts.evaluate(
      peer: "", at: now,
      observe: { metric in
        let value: Double? =
          switch metric {
          case .callFailureRatio: snapshot.failureRatio
          case .callServerFailureRatio: snapshot.serverFailureRatio
          default: nil
          }
        return .init(measured: value, shown: value)
      },
      describe: { rule, evidence in
        "\(rule.metric.rawValue) \(rule.comparison.rawValue) \(rule.threshold) for "
          + "\(evidence.ticks) ticks: \((evidence.worstValue * 1000).rounded() / 10) % of the SIP "
          + "calls ended in the last \(Int(configuration.calls.failureWindowSeconds)) s"
      })
    let events = changes.map { alert in
      EngineEvent(
        time: now, kind: alert.state == .firing ? .alertFiring : .alertResolved, peer: "",
        previousState: nil, alert: alert)
    }
    return (snapshot, events)
  }
}
