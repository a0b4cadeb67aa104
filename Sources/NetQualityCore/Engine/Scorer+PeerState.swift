extension Scorer {
  /// Advances a peer's connection state to `now` on everything that shows it alive: its RTP
  /// and RTCP, and its reflector's answers to our probes. Returns the state (before a link
  /// that is down overrides it) and the events of its transitions.
  mutating func advanceState(
    _ record: inout PeerRecord, _ name: String, _ window: PeerWindow, probe: BoxedProbe?,
    now: CaptureTime
  ) -> (ConnectionState, CaptureTime, [EngineEvent]) {
    // Liveness: anything from the peer, RTP, RTCP or a probe's answer. A peer that never sent
    // anything is judged by our first probe to it, or (a receive-only viewer without RTCP)
    // by our traffic to it.
    // What the capture heard last, through its blind spans: heard until it went blind is
    // taken as heard until it could see again (`CaptureBlindSpan`).
    let blind = captureBlindSpans(of: window.interfaces)
    func heard(_ time: CaptureTime?) -> CaptureTime? {
      guard let time, !blind.isEmpty else { return time }
      for span in blind where span.hides(silenceSince: time, until: now) {
        return min(span.to ?? now, now)
      }
      return time
    }
    let lastMedia = heard(window.rxLastArrival)
    let lastRTCP = heard(window.lastRTCP)
    // Without an array of optionals: two arrays a peer and tick were 5 % of a tick under churn
    // (perf, issue 37).
    let fromPeer = CaptureTime.later(
      CaptureTime.later(lastMedia, lastRTCP), probe?.value.lastReplyAt)
    let activity = fromPeer ?? probe?.value.firstSentAt ?? heard(window.txLastArrival) ?? now
    let resumedAt = CaptureTime.earlier(window.rxResumedAt, probe?.value.resumedAt)
    let (endedAt, endReason) = Self.end(
      of: window, sessionEnd: window.sessionEnd, activity: activity, now: now,
      inputEnded: inputEnded)
    // A peer reached only through interfaces whose link is down is down since the last of
    // them went down.
    let linkDown = linkDownSince(window.interfaces) != nil
    // A peer that never sent RTP (a receive-only viewer) is alive by its RTCP alone, on the
    // same cadence, and never held.
    var control: ConnectionTracker.Control?
    if let lastRTCP, let allowance = window.rtcpAllowanceSeconds {
      control = ConnectionTracker.Control(
        lastMedia: lastMedia, lastRTCP: lastRTCP, allowanceSeconds: allowance)
    }
    var events: [EngineEvent] = []
    for (transition, time) in record.tracker.advance(
      to: now, lastActivity: activity, resumedAt: resumedAt, endedAt: endedAt,
      control: control, heardFrom: fromPeer != nil || window.txLastArrival != nil,
      timers: configuration.timers)
    {
      // While the link stays down its link_down event has said the peer is down: silence
      // crossing the interrupted and disconnected marks says nothing new.
      if linkDown && (transition == .interrupted || transition == .disconnected) {
        continue
      }
      var event = event(transition, peer: name, at: time)
      if case .ended = transition { event.endReason = endReason }
      events.append(event)
      // An outage, not a hold: nothing was lost while the peer held the call, and what the
      // first report after it covers was sent after it (`reportCandidate`).
      if case .recovered(let after) = transition, after != .held { record.recoveredAt = time }
    }
    return (record.tracker.state, record.tracker.since, events)
  }

  /// How long after a clear end-of-call signal the peer's last packets may still come (in
  /// flight, or sent before its stack saw the other side's close): one tick.
  static let endSignalGraceSeconds = 2.0

  /// When and why the peer's call ended, if it did: every stream from it ended with an RTCP
  /// BYE, or a DTLS alert or TURN release came with nothing from the peer more than
  /// `endSignalGraceSeconds` after it (known once that much time has passed: the call ends
  /// at the tick after, dated back to its last packet; at once when the input ended).
  /// `sessionEnd`: the latest DTLS alert or TURN release that counts (a peer's: any on its
  /// address, `window.sessionEnd`; a WebRTC call's: one on its own flows).
  static func end(
    of window: PeerWindow, sessionEnd: SessionEnd?, activity: CaptureTime,
    now: CaptureTime, inputEnded: Bool = false
  ) -> (CaptureTime?, SessionEnd.Reason?) {
    if window.rxStreams > 0 && window.rxStreamsEnded == window.rxStreams,
      let goodbye = window.rxGoodbye
    {
      return (goodbye, .rtcpBye)
    }
    if let end = sessionEnd,
      inputEnded || now >= end.time.advanced(bySeconds: endSignalGraceSeconds),
      activity <= end.time.advanced(bySeconds: endSignalGraceSeconds)
    {
      return (max(end.time, activity), end.reason)
    }
    return (nil, nil)
  }

  /// The latest blind span of each of `interfaces`' captures (none, nearly always).
  ///
  /// Inlined, as `linkDownSince` is: both are asked for every peer at every tick, and a call
  /// of a method of the scorer from a mutating one copied the whole scorer (1.5 KB) into a
  /// temporary for it (Swift passes a struct this large by address; perf, issue 37).
  @inline(__always)
  func captureBlindSpans(of interfaces: InterfaceSet) -> [CaptureBlindSpan] {
    guard !captureBlind.isEmpty else { return [] }
    return interfaces.compactMap { captureBlind[$0] }
  }

  /// When the last of `interfaces` went down, if every one of them is down now.
  @inline(__always)
  func linkDownSince(_ interfaces: InterfaceSet) -> CaptureTime? {
    guard !interfaces.isEmpty else { return nil }
    var latest = CaptureTime.zero
    for interface in interfaces {
      guard let down = linksDown[interface] else { return nil }
      latest = max(latest, down)
    }
    return latest
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
}
