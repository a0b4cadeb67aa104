extension Engine {
  /// Feeds one settled probe (see `ProbeSample`): its target's address is a peer, alive while
  /// the reflector answers, whether or not it carries RTP.
  public mutating func record(probe sample: ProbeSample) {
    probeSessions[
      sample.target, default: ProbeTracker(target: sample.target, firstSentAt: sample.sentAt)
    ].record(sample)
  }

  /// The probe sessions' windows pooled per peer; starts their next windows and forgets the
  /// sessions that settled nothing since `forgetBefore` (their target left the configuration).
  mutating func takeProbeWindows(forgetBefore: CaptureTime) -> [String: ProbeSnapshot] {
    var byPeer: [String: ProbeSnapshot] = [:]
    for target in probeSessions.keys.sorted(by: { $0.description < $1.description }) {
      guard let session = probeSessions[target], session.lastSentAt >= forgetBefore else {
        probeSessions[target] = nil
        continue
      }
      byPeer[configuration.peerName(target.address), default: ProbeSnapshot()].add(session)
      probeSessions[target]?.startWindow()
    }
    return byPeer
  }
}
