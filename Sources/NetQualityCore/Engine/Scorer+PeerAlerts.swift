extension Scorer {
  /// The alert rules on the peer's snapshot: all resolved when its call ended.
  mutating func alertEvents(_ snapshot: PeerSnapshot, now: CaptureTime) -> [EngineEvent] {
    let name = snapshot.peer
    let alertChanges: [Alert]
    if snapshot.state == .ended {
      alertChanges = alerts.resolveAll(peer: name, at: now)
    } else {
      alertChanges = alerts.evaluate(
        peer: name, at: now, observe: { Self.observation(of: $0, in: snapshot) },
        describe: { rule, evidence in Self.summary(rule, evidence: evidence, peer: snapshot) })
    }
    return alertChanges.map { alert in
      EngineEvent(
        time: now, kind: alert.state == .firing ? .alertFiring : .alertResolved, peer: name,
        previousState: nil, alert: alert)
    }
  }

  /// What a rule sees of `peer`: the figure measured this tick and the figure shown.
  static func observation(of metric: AlertRule.Metric, in peer: PeerSnapshot)
    -> AlertEvaluator.Observation
  {
    // Quality rules count the windows' own levels to fire (a damped level held over from
    // earlier ticks would fire on what is no longer measured) and resolve on the level shown
    // (`AlertEvaluator`). Levels 1...5 only: down (6) is the disconnect and timeout alerts'
    // business, so a disconnection does not raise a quality alert as well.
    func level(_ level: QualityLevel) -> Double? {
      guard peer.state != .disconnected, peer.state != .timeout, peer.state != .ended else {
        return nil
      }
      return level == .unknown || level == .down ? nil : Double(level.rawValue)
    }
    let inputs = inputs(of: metric, in: peer)
    // The connection rules watch the state itself; every other figure is held while silent.
    let silent =
      metric != .connectionState
      && [.interrupted, .disconnected, .timeout].contains(peer.state)
    switch metric {
    case .rxQuality:
      return .init(
        measured: level(peer.rx.rawLevel), shown: level(peer.rx.level), inputs: inputs,
        peerSilent: silent)
    case .txQuality:
      return .init(
        measured: level(peer.tx.rawLevel), shown: level(peer.tx.level), inputs: inputs,
        peerSilent: silent)
    default:
      let value = value(of: metric, in: peer)
      return .init(measured: value, shown: value, inputs: inputs, peerSilent: silent)
    }
  }

  /// A figure that is not a level: as measured this tick.
  static func value(of metric: AlertRule.Metric, in peer: PeerSnapshot) -> Double? {
    switch metric {
    case .rxQuality: return Double(peer.rx.rawLevel.rawValue)
    case .txQuality: return Double(peer.tx.rawLevel.rawValue)
    case .rxLossRatio: return peer.rx.inputs?.lossRatio
    case .txLossRatio: return peer.tx.inputs?.lossRatio
    case .rxJitterMilliseconds: return peer.rx.inputs?.jitterMilliseconds
    case .txJitterMilliseconds: return peer.tx.inputs?.jitterMilliseconds
    case .roundTripMilliseconds: return peer.roundTripMilliseconds
    case .rxMeanOpinionScore: return peer.rx.meanOpinionScore
    case .txMeanOpinionScore: return peer.tx.meanOpinionScore
    case .connectionState: return Double(peer.state.number)
    case .rxVideoFreezes:
      guard let media = peer.media, media.rx.videoStreams > 0 else { return nil }
      return Double(media.rx.window.freezes)
    case .callFailureRatio, .callServerFailureRatio: return nil
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
    // A figure scored from probes while the reflector answered packets we never sent may be
    // a spoofer's doing (issue 39): the page says so rather than leave it to be found.
    let spoofed =
      peer.probe?.possiblySpoofed == true
      ? "; possibly spoofed: the reflector answered probes we never sent" : ""
    switch rule.metric {
    case .connectionState:
      return "peer \(peer.peer) \(peer.state.rawValue) since \(peer.stateSince.rfc3339)"
    case .callFailureRatio, .callServerFailureRatio:
      return "\(rule.metric.rawValue) \(evidence.worstValue)"
    case .rxQuality, .txQuality:
      let value = evidence.worstValue
      let name = QualityLevel(rawValue: Int(value))?.name ?? "\(value)"
      return "peer \(peer.peer) \(rule.metric.direction ?? "") quality \(name) over "
        + "\(evidence.ticks) ticks\(figures ?? "")\(spoofed)"
    default:
      return "peer \(peer.peer) \(rule.metric.rawValue) \(rule.comparison.rawValue) "
        + "\(rule.threshold) for \(evidence.ticks) ticks: \(evidence.worstValue)\(figures ?? "")"
        + spoofed
    }
  }
}
