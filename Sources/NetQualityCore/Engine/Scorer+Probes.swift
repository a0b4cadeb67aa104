extension Scorer {
  /// Feeds one settled probe (see `ProbeSample`): its target's address is a peer, alive while
  /// the reflector answers, whether or not it carries RTP.
  public mutating func record(probe sample: ProbeSample) {
    // A silence of the answers as long as the interruption is an outage, the state's to report.
    let outage = configuration.timers.interruptedAfterSeconds
    guard let index = probeSessionIndex[sample.target] else {
      probeSessionIndex[sample.target] = probeSessions.count
      probeSessions.append(
        ProbeTracker(
          target: sample.target, firstSentAt: sample.sentAt,
          roundTripBoundsSeconds: configuration.probeRoundTripBoundsSeconds))
      probeSessions[probeSessions.count - 1].record(sample, outageAfterSeconds: outage)
      return
    }
    probeSessions[index].record(sample, outageAfterSeconds: outage)
  }

  /// The probe targets in session now, in no particular order.
  public var probeTargets: [Endpoint] { probeSessions.map(\.target) }

  /// Forgets the probe sessions of `targets` at once: a reload removed them and the probe
  /// thread has settled their last probes. A peer left with no stream and no probe session is
  /// forgotten at the next tick, its alerts resolved (a target taken out of the configuration
  /// is not an outage to page about).
  public mutating func forgetProbeSessions(_ targets: Set<Endpoint>) {
    guard probeSessions.contains(where: { targets.contains($0.target) }) else { return }
    probeSessions.removeAll { targets.contains($0.target) }
    probeSessionIndex = [:]
    for (index, session) in probeSessions.enumerated() {
      probeSessionIndex[session.target] = index
    }
  }

  /// The sender to `target` started a new STAMP session (`ProbeTracker.startNewSession`).
  public mutating func restartProbeSession(_ target: Endpoint) {
    guard let index = probeSessionIndex[target] else { return }
    probeSessions[index].startNewSession()
  }

  /// The probe sessions' windows pooled per peer; starts their next windows and forgets the
  /// sessions that settled nothing since `forgetBefore` (their target left the configuration).
  /// `now`: the tick's time; a peer whose reflector sent answers to no probe of ours within
  /// the windows that score its level (`QualityModel.scoringWindows` ticks) is flagged
  /// possibly spoofed.
  mutating func takeProbeWindows(forgetBefore: CaptureTime, now: CaptureTime)
    -> [String: ProbeSnapshot]
  {
    let spoofedSince = now.advanced(
      bySeconds: -Double(configuration.quality.scoringWindows) * configuration.tickIntervalSeconds)
    var byPeer: [String: ProbeSnapshot] = [:]
    if probeSessions.contains(where: { $0.lastSentAt < forgetBefore }) {
      probeSessions.removeAll { $0.lastSentAt < forgetBefore }
      probeSessionIndex = [:]
      for (index, session) in probeSessions.enumerated() {
        probeSessionIndex[session.target] = index
      }
    }
    let order = probeSessions.indices.sorted {
      probeSessions[$0].target.description < probeSessions[$1].target.description
    }
    for index in order {
      let session = probeSessions[index]
      let name = configuration.peerName(session.target.address)
      byPeer[name, default: ProbeSnapshot()].add(session)
      if let last = session.lastUnexpectedAt, last > spoofedSince {
        byPeer[name]?.possiblySpoofed = true
      }
      probeSessions[index].startWindow()
    }
    return byPeer
  }
}
