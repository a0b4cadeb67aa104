extension Scorer {
  /// Brings one peer up to `now`: its connection state, each direction's score (from its RTP
  /// streams, its probes, or both) and its alert rules.
  mutating func updatePeer(
    _ name: String, _ window: PeerWindow, probe: ProbeSnapshot?, media: PeerMedia? = nil,
    now: CaptureTime, intervalSeconds: Double
  ) -> (PeerSnapshot, [EngineEvent]) {
    // First seen: the first packet from the peer, or our first probe to it, or (a silent
    // peer) our last packet to it.
    let firstSeen =
      window.rxResumedAt ?? window.rxLastArrival ?? probe?.firstSentAt ?? window.txLastArrival
      ?? now
    var record = peers.take(name) ?? PeerRecord(firstSeen: firstSeen)
    var (state, stateSince, events) = advanceState(
      &record, name, window, probe: probe, now: now)
    let (rtt, rttSource) = roundTrip(window, probe: probe, now: now)
    var rx = scoreRx(&record, window, probe: probe, roundTripMilliseconds: rtt)
    var tx = scoreTx(&record, window, probe: probe, roundTripMilliseconds: rtt, now: now)
    if let linkDownSince = linkDownSince(window.interfaces), state != .ended, state != .timeout {
      // Down from the moment the link went, or from the silence before it if that came first.
      stateSince = state == .disconnected ? min(stateSince, linkDownSince) : linkDownSince
      state = .disconnected
    }
    switch state {
    case .disconnected, .timeout:
      // No traffic for the disconnect interval: down, whatever the last windows said.
      rx = .down
      tx = .down
    case .ended:
      rx = .unknown
      tx = .unknown
    case .interrupted:
      // Nothing flows: no opinion of a call that cannot be heard (the pooled windows still hold
      // the seconds before the silence, which scored the level shown until the state says).
      rx.meanOpinionScore = nil
      rx.rating = nil
      tx.meanOpinionScore = nil
      tx.rating = nil
    default:
      break
    }
    if probe == nil { Self.dropOpinionOfSilence(&rx, &tx, window) }
    record.interfaces = window.interfaces
    record.levelCounters.record(rx: rx.level, tx: tx.level, seconds: intervalSeconds, at: now)
    let extras = PeerExtras.boxed(probe: probe, media: media, reusing: record.extras)
    record.extras = extras
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
      streams: window.streams, extras: extras)
    events += alertEvents(snapshot, now: now)
    return (snapshot, events)
  }
}

extension Scorer {
  /// A direction whose window carried no media has no opinion score (and no rating): the
  /// level shown still comes from the pooled windows, but a MOS of a window nobody could hear
  /// would be made of the windows before it, and rose as their losses aged out during a
  /// blackout (3.14 → 3.87 → 4.14, issue 38). For peers and calls alike.
  static func dropOpinionOfSilence(
    _ rx: inout DirectionSnapshot, _ tx: inout DirectionSnapshot, _ window: PeerWindow
  ) {
    if window.rxAudio.packets + window.rxVideo.packets == 0 {
      rx.meanOpinionScore = nil
      rx.rating = nil
    }
    if window.txPackets == 0 {
      tx.meanOpinionScore = nil
      tx.rating = nil
    }
  }
}

extension EngineEvent {
  init(time: CaptureTime, kind: Kind, peer: String, previousState: ConnectionState? = nil) {
    self.init(time: time, kind: kind, peer: peer, previousState: previousState, alert: nil)
  }
}
