extension Scorer {
  /// Feeds one settled probe (see `ProbeSample`): its target's address is a peer, alive while
  /// the reflector answers, whether or not it carries RTP.
  public mutating func record(probe sample: ProbeSample) {
    // A silence of the answers as long as the interruption is an outage, the state's to report.
    let outage = configuration.timers.interruptedAfterSeconds
    guard let index = probeSessionIndex[sample.target] else {
      probeSessionIndex[sample.target] = probeSessions.count
      probeSessions.append(ProbeTracker(target: sample.target, firstSentAt: sample.sentAt))
      probeSessions[probeSessions.count - 1].record(sample, outageAfterSeconds: outage)
      return
    }
    probeSessions[index].record(sample, outageAfterSeconds: outage)
  }

  /// The probe sessions' windows pooled per peer; starts their next windows and forgets the
  /// sessions that settled nothing since `forgetBefore` (their target left the configuration).
  mutating func takeProbeWindows(forgetBefore: CaptureTime) -> [String: ProbeSnapshot] {
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
      byPeer[configuration.peerName(session.target.address), default: ProbeSnapshot()].add(session)
      probeSessions[index].startWindow()
    }
    return byPeer
  }
}
