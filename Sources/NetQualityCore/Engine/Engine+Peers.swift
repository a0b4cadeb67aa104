extension Engine {
  /// Scores a peer's window, advances its connection state and evaluates the alert rules.
  mutating func updatePeer(
    _ name: String, _ window: PeerWindow, now: CaptureTime
  ) -> (PeerSnapshot, [EngineEvent]) {
    let model = configuration.quality
    // First seen: the first packet from the peer (or, for a silent peer, our last to it).
    let firstSeen = window.rxResumedAt ?? window.rxLastArrival ?? window.txLastArrival ?? now
    var record = peers[name] ?? PeerRecord(firstSeen: firstSeen)
    var events: [EngineEvent] = []

    // Liveness: anything the peer sent, RTP or RTCP. A peer that never sent anything (a
    // receive-only viewer without RTCP) is judged by our traffic to it instead.
    let fromPeer = [window.rxLastArrival, window.lastRTCP].compactMap { $0 }.max()
    let activity = fromPeer ?? window.txLastArrival ?? now
    let (endedAt, endReason) = Self.end(
      of: window, activity: activity, now: now, inputEnded: inputEnded)
    // A peer reached only through interfaces whose link is down is down since the last of
    // them went down.
    let linkDownSince = linkDownSince(window.interfaces)
    // A peer that never sent RTP (a receive-only viewer) is alive by its RTCP alone, on the
    // same cadence, and never held.
    var control: ConnectionTracker.Control?
    if let lastRTCP = window.lastRTCP, let allowance = window.rtcpAllowanceSeconds {
      control = ConnectionTracker.Control(
        lastMedia: window.rxLastArrival, lastRTCP: lastRTCP, allowanceSeconds: allowance)
    }
    for (transition, time) in record.tracker.advance(
      to: now, lastActivity: activity, resumedAt: window.rxResumedAt, endedAt: endedAt,
      control: control, timers: configuration.timers)
    {
      // While the link stays down its link_down event has said the peer is down: silence
      // crossing the interrupted and disconnected marks says nothing new.
      if linkDownSince != nil && (transition == .interrupted || transition == .disconnected) {
        continue
      }
      var event = event(transition, peer: name, at: time)
      if case .ended = transition { event.endReason = endReason }
      events.append(event)
      if case .recovered = transition { record.recoveredAt = time }
    }

    // rx: what we measured on the peer's streams, pooled over the scoring windows.
    record.rxAudio.push(
      packets: window.rxAudio.packets, expected: window.rxAudio.expected, lost: window.rxAudio.lost,
      keep: model.scoringWindows)
    record.rxVideo.push(
      packets: window.rxVideo.packets, expected: window.rxVideo.expected, lost: window.rxVideo.lost,
      keep: model.scoringWindows)
    // RTCP's round trip while fresh; failing that (SRTCP), the ICE checks'.
    var rtt: Double?
    var rttSource: RoundTripSource?
    for (sample, source) in [
      (window.roundTrip, RoundTripSource.rtcp), (window.stunRoundTrip, .stun),
    ]
    where rtt == nil {
      if let sample, now.seconds(since: sample.time) <= model.feedbackStaleSeconds {
        rtt = sample.milliseconds
        rttSource = source
      }
    }
    var rxRaw = QualityModel.Score(
      level: .unknown, rating: nil, meanOpinionScore: nil, oneWayDelayMilliseconds: nil,
      limitedBy: nil)
    var rxInputs: QualityModel.Inputs?
    for (pool, isVideo) in [(record.rxAudio, false), (record.rxVideo, true)] where pool.packets > 0
    {
      let inputs = QualityModel.Inputs(
        packets: pool.packets, lossRatio: pool.lossRatio,
        jitterMilliseconds: window.rxJitterMilliseconds ?? 0, roundTripMilliseconds: rtt,
        isVideo: isVideo)
      let score = model.score(inputs, enoughPackets: pool.packets >= model.minimumPackets)
      if rxInputs == nil || score.level.worse(rxRaw.level) != rxRaw.level {
        rxRaw = score
        rxInputs = inputs
      }
    }

    // tx: what the peer reported about our streams (RFC 3550 receiver reports), while fresh,
    // and not a report whose interval began before the last recovery: its fraction lost spans
    // the outage, which the connection state already told.
    let fresh = window.txFeedback.filter { report in
      guard now.seconds(since: report.time) <= model.feedbackStaleSeconds else { return false }
      guard let recovered = record.recoveredAt else { return true }
      return (report.since ?? report.time) >= recovered
    }
    var txRaw = QualityModel.Score(
      level: .unknown, rating: nil, meanOpinionScore: nil, oneWayDelayMilliseconds: nil,
      limitedBy: nil)
    var txInputs: QualityModel.Inputs?
    if !fresh.isEmpty {
      let inputs = QualityModel.Inputs(
        packets: window.txPackets, lossRatio: fresh.map(\.fractionLost).max() ?? 0,
        jitterMilliseconds: fresh.compactMap(\.jitterMilliseconds).max() ?? 0,
        roundTripMilliseconds: rtt, isVideo: window.txVideo)
      txRaw = model.score(inputs, enoughPackets: true)
      txInputs = inputs
    }

    var state = record.tracker.state
    var stateSince = record.tracker.since
    if let linkDownSince, state != .ended, state != .timeout {
      // Down from the moment the link went, or from the silence before it if that came first.
      stateSince = state == .disconnected ? min(stateSince, linkDownSince) : linkDownSince
      state = .disconnected
    }
    var rx = direction(raw: rxRaw, inputs: rxInputs, damper: &record.rxDamper)
    var tx = direction(raw: txRaw, inputs: txInputs, damper: &record.txDamper)
    switch state {
    case .disconnected, .timeout:
      // No traffic for the disconnect interval: down, whatever the last windows said.
      rx = .down
      tx = .down
    case .ended:
      rx = .unknown
      tx = .unknown
    default:
      break
    }
    record.rxPacketsTotal = window.rxPacketsTotal
    record.rxLostTotal = window.rxLostTotal
    record.txPacketsTotal = window.txPacketsTotal
    peers[name] = record

    let snapshot = PeerSnapshot(
      peer: name, state: state, stateSince: stateSince, rx: rx, tx: tx,
      roundTripMilliseconds: rtt, roundTripSource: rttSource,
      rxPackets: window.rxAudio.packets + window.rxVideo.packets,
      rxLost: max(0, window.rxAudio.lost + window.rxVideo.lost),
      rxBitsPerSecond: window.rxBitsPerSecond,
      txPackets: window.txPackets, rxPacketsTotal: window.rxPacketsTotal,
      rxLostTotal: window.rxLostTotal, txPacketsTotal: window.txPacketsTotal,
      rxRetransmittedPackets: window.rxRetransmitted.window,
      txRetransmittedPackets: window.txRetransmitted.window, rxFECPackets: window.rxFEC.window,
      rxRetransmittedTotal: window.rxRetransmitted.total,
      txRetransmittedTotal: window.txRetransmitted.total, rxFECTotal: window.rxFEC.total,
      streams: window.streams)

    let alertChanges: [Alert]
    if state == .ended {
      alertChanges = alerts.resolveAll(peer: name, at: now)
    } else {
      alertChanges = alerts.evaluate(
        peer: name, at: now, value: { Self.value(of: $0, in: snapshot) },
        inputs: { Self.inputs(of: $0, in: snapshot) },
        describe: { rule, evidence in Self.summary(rule, evidence: evidence, peer: snapshot) })
    }
    for alert in alertChanges {
      events.append(
        EngineEvent(
          time: now, kind: alert.state == .firing ? .alertFiring : .alertResolved, peer: name,
          previousState: nil, alert: alert))
    }
    return (snapshot, events)
  }

  /// How long after a clear end-of-call signal the peer's last packets may still come (in
  /// flight, or sent before its stack saw the other side's close): one tick.
  static let endSignalGraceSeconds = 2.0

  /// When and why the peer's call ended, if it did: every stream from it ended with an RTCP
  /// BYE, or a DTLS alert or TURN release came with nothing from the peer more than
  /// `endSignalGraceSeconds` after it (known once that much time has passed: the call ends
  /// at the tick after, dated back to its last packet; at once when the input ended).
  static func end(
    of window: PeerWindow, activity: CaptureTime, now: CaptureTime, inputEnded: Bool = false
  ) -> (CaptureTime?, SessionEnd.Reason?) {
    if window.rxStreams > 0 && window.rxStreamsEnded == window.rxStreams,
      let goodbye = window.rxGoodbye
    {
      return (goodbye, .rtcpBye)
    }
    if let end = window.sessionEnd,
      inputEnded || now >= end.time.advanced(bySeconds: endSignalGraceSeconds),
      activity <= end.time.advanced(bySeconds: endSignalGraceSeconds)
    {
      return (max(end.time, activity), end.reason)
    }
    return (nil, nil)
  }

  /// When the last of `interfaces` went down, if every one of them is down now.
  func linkDownSince(_ interfaces: Set<UInt8>) -> CaptureTime? {
    guard !interfaces.isEmpty else { return nil }
    var latest = CaptureTime.zero
    for interface in interfaces {
      guard let down = linksDown[interface] else { return nil }
      latest = max(latest, down)
    }
    return latest
  }

  private func direction(
    raw: QualityModel.Score, inputs: QualityModel.Inputs?, damper: inout LevelDamper
  ) -> DirectionSnapshot {
    let level = damper.update(
      raw.level, worsenAfter: configuration.quality.worsenAfterTicks,
      improveAfter: configuration.quality.improveAfterTicks)
    return DirectionSnapshot(
      level: level, rawLevel: raw.level, inputs: inputs, rating: raw.rating,
      meanOpinionScore: raw.meanOpinionScore, oneWayDelayMilliseconds: raw.oneWayDelayMilliseconds,
      limitedBy: raw.limitedBy)
  }

  private func event(_ transition: ConnectionTracker.Transition, peer: String, at time: CaptureTime)
    -> EngineEvent
  {
    switch transition {
    case .connected: EngineEvent(time: time, kind: .connected, peer: peer)
    case .interrupted: EngineEvent(time: time, kind: .interrupted, peer: peer)
    case .disconnected: EngineEvent(time: time, kind: .disconnected, peer: peer)
    case .timeout: EngineEvent(time: time, kind: .timeout, peer: peer)
    case .ended: EngineEvent(time: time, kind: .ended, peer: peer)
    case .held: EngineEvent(time: time, kind: .held, peer: peer)
    case .recovered(let after):
      EngineEvent(time: time, kind: .recovered, peer: peer, previousState: after)
    }
  }

  static func value(of metric: AlertRule.Metric, in peer: PeerSnapshot) -> Double? {
    // Quality rules judge each window's own level, before damping: the rule's `for` ticks
    // already ask for a condition that lasts, and a damped level held over from earlier ticks
    // would fire on what is no longer measured. Levels 1...5 only: down (6) is the disconnect
    // and timeout alerts' business, so a disconnection does not raise a quality alert as well.
    func level(_ direction: DirectionSnapshot) -> Double? {
      guard peer.state != .disconnected, peer.state != .timeout, peer.state != .ended else {
        return nil
      }
      return direction.rawLevel == .unknown || direction.rawLevel == .down
        ? nil : Double(direction.rawLevel.rawValue)
    }
    switch metric {
    case .rxQuality: return level(peer.rx)
    case .txQuality: return level(peer.tx)
    case .rxLossRatio: return peer.rx.inputs?.lossRatio
    case .txLossRatio: return peer.tx.inputs?.lossRatio
    case .rxJitterMilliseconds: return peer.rx.inputs?.jitterMilliseconds
    case .txJitterMilliseconds: return peer.tx.inputs?.jitterMilliseconds
    case .roundTripMilliseconds: return peer.roundTripMilliseconds
    case .rxMeanOpinionScore: return peer.rx.meanOpinionScore
    case .txMeanOpinionScore: return peer.tx.meanOpinionScore
    case .connectionState: return Double(peer.state.number)
    }
  }

  /// The scored window of a metric's direction (nil for metrics without one).
  static func inputs(of metric: AlertRule.Metric, in peer: PeerSnapshot) -> QualityModel.Inputs? {
    switch metric.direction {
    case "rx": peer.rx.inputs
    case "tx": peer.tx.inputs
    default: nil
    }
  }

  /// The alert's line: the worst value of the ticks that made it fire and, for a direction,
  /// the largest loss and jitter of those windows.
  static func summary(_ rule: AlertRule, evidence: AlertEvidence, peer: PeerSnapshot) -> String {
    let figures = evidence.maxLossRatio.map { loss in
      let jitter = evidence.maxJitterMilliseconds ?? 0
      return " (loss up to \((loss * 1000).rounded() / 10) %, jitter up to "
        + "\((jitter * 10).rounded() / 10) ms)"
    }
    switch rule.metric {
    case .connectionState:
      return "peer \(peer.peer) \(peer.state.rawValue) since \(peer.stateSince.rfc3339)"
    case .rxQuality, .txQuality:
      let value = evidence.worstValue
      let name = QualityLevel(rawValue: Int(value))?.name ?? "\(value)"
      return "peer \(peer.peer) \(rule.metric.direction ?? "") quality \(name) over "
        + "\(evidence.ticks) ticks\(figures ?? "")"
    default:
      return "peer \(peer.peer) \(rule.metric.rawValue) \(rule.comparison.rawValue) "
        + "\(rule.threshold) for \(evidence.ticks) ticks: \(evidence.worstValue)\(figures ?? "")"
    }
  }
}

extension EngineEvent {
  init(time: CaptureTime, kind: Kind, peer: String, previousState: ConnectionState? = nil) {
    self.init(time: time, kind: kind, peer: peer, previousState: previousState, alert: nil)
  }
}
