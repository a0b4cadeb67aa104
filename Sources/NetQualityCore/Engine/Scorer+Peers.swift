extension Scorer {
  /// Brings one peer up to `now`: its connection state, each direction's score (from its RTP
  /// streams, its probes, or both) and its alert rules. `place`: where its record was at the
  /// tick before (-1: not known), and where it is now.
  mutating func updatePeer(
    _ name: String, _ window: PeerWindow, probe: BoxedProbe?, mediaPlace: Int? = nil,
    place recordPlace: inout Int32, now: CaptureTime, intervalSeconds: Double
  ) -> (PeerSnapshot, [EngineEvent]) {
    // First seen: the first packet from the peer, or our first probe to it, or (a silent
    // peer) our last packet to it.
    let firstSeen =
      window.rxResumedAt ?? window.rxLastArrival ?? probe?.value.firstSentAt ?? window.txLastArrival
      ?? now
    var record = PeerRecord(firstSeen: firstSeen)
    let place = peers.take(name, hint: recordPlace, into: &record)
    record.scoredTick = tickNumber
    var (state, stateSince, events) = advanceState(
      &record, name, window, probe: probe, now: now)
    // Read in its box, never copied out to be checked: the copy of every resting peer's
    // snapshot was 5 % of a tick under churn (perf, issue 37).
    if let resting = record.resting, events.isEmpty,
      isStillResting(resting, record, window, probe: probe, mediaPlace: mediaPlace),
      state == resting.value.snapshot.state && stateSince == resting.value.snapshot.stateSince
    {
      // The same snapshot as the ticks before: only the time at its levels goes on.
      record.levelCounters.record(
        rx: resting.value.snapshot.rx.level, tx: resting.value.snapshot.tx.level,
        seconds: intervalSeconds, at: now)
      recordPlace = peers.putBack(record, at: place, name: name)
      return (resting.value.snapshot, [])
    }
    let restsBefore = (record.rxDamper, record.txDamper, record.poolsEmpty)
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
    let extras = PeerExtras.boxed(
      probe: probe, mediaAt: mediaPlace, of: peerMedia, reusing: record.extras)
    record.extras = extras

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
    // A silent peer may come to rest: scored twice over the same inputs, to the same snapshot,
    // with its rules and scoring state unchanged (`RestingPeer`).
    let mayRest =
      reusesRestingPeers && probe == nil && events.isEmpty && rtt == nil
      && (state == .disconnected || state == .timeout) && linksDown.isEmpty && window.isSilent
      && restsBefore == (record.rxDamper, record.txDamper, true) && record.poolsEmpty
    let tracksBefore = mayRest ? alerts.tracks(of: name) : nil
    let alertChanges = alertEvents(snapshot, now: now)
    events += alertChanges
    let previous = resting(in: record)
    record.resting = nil
    if mayRest, alertChanges.isEmpty, alerts.tracks(of: name) == tracksBefore {
      let inputs = RestingPeer.Inputs(window)
      record.resting = OutOfLine(
        RestingPeer(
          inputs: inputs, snapshot: snapshot, settingsGeneration: settingsGeneration,
          confirmed: previous?.value.inputs == inputs && previous?.value.snapshot == snapshot))
    }
    recordPlace = peers.putBack(record, at: place, name: name)
    return (snapshot, events)
  }

  /// Whether a resting peer is still at rest at this tick: confirmed, under the same settings,
  /// its window silent with the same inputs, its media (at `mediaPlace` in the tick's table)
  /// the same, no probe and no link down.
  private func isStillResting(
    _ resting: OutOfLine<RestingPeer>, _ record: PeerRecord, _ window: PeerWindow,
    probe: BoxedProbe?, mediaPlace: Int?
  ) -> Bool {
    guard
      resting.value.confirmed && resting.value.settingsGeneration == settingsGeneration
        && probe == nil && linksDown.isEmpty && window.isSilent
    else { return false }
    let sameMedia =
      record.extras.map { $0.value.holdsMedia(at: mediaPlace, of: peerMedia) }
      ?? (mediaPlace == nil)
    return sameMedia && RestingPeer.Inputs(window) == resting.value.inputs
  }

  /// The record's resting snapshot of the previous tick, if it is of these settings.
  private func resting(in record: PeerRecord) -> OutOfLine<RestingPeer>? {
    guard let resting = record.resting, resting.value.settingsGeneration == settingsGeneration
    else { return nil }
    return resting
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
