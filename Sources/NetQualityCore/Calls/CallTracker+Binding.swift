/// Binding streams to calls, and WebRTC sessions from ICE checks.
extension CallTracker {
  /// An ICE check (RFC 8445 section 7.2.2): its USERNAME names the session, the flow it went
  /// over (outer addresses when relayed by TURN, RFC 8656 section 12) becomes the session's.
  mutating func apply(_ check: SignallingJournal.ICECheck) {
    let flow = FlowPair(check.source, check.destination)
    var slot = bySession[check.sessionHash]
    if slot == nil {
      guard let opened = open(.webrtc, at: check.time) else { return }
      calls[Int(opened)].iceSession = check.sessionHash
      bySession[check.sessionHash] = opened
      slot = opened
    }
    guard let slot else { return }
    calls[Int(slot)].lastCheck = check.time
    calls[Int(slot)].lastSignal = max(calls[Int(slot)].lastSignal, check.time)
    if byFlow[flow] != slot, calls[Int(slot)].flows.count < 16 {
      if !calls[Int(slot)].flows.contains(flow) { calls[Int(slot)].flows.append(flow) }
      byFlow[flow] = slot
    }
  }

  /// A DTLS alert or TURN release on a flow: the end of the WebRTC session whose checks went
  /// over it (`SignallingJournal.FlowEnd`), decided like a peer's (`decideEnd`).
  mutating func apply(_ flowEnd: SignallingJournal.FlowEnd) {
    guard let slot = byFlow[FlowPair(flowEnd.source, flowEnd.destination)],
      calls[Int(slot)].isLive, calls[Int(slot)].kind == .webrtc
    else { return }
    if calls[Int(slot)].flowEnd.map({ flowEnd.end.time > $0.time }) ?? true {
      calls[Int(slot)].flowEnd = flowEnd.end
    }
  }

  /// Binds a stream the tick sees for the first time: to the SIP call whose SDP names its
  /// ends (both ends of one call first: a media port shared by many calls names them all),
  /// else to the WebRTC session whose checks went over its flow, else to its peer's media
  /// session.
  mutating func bind(_ birth: Birth, scorer: Scorer) {
    var slot: Int32?
    if !birth.mediaOnly {
      slot =
        signalledCall(of: birth.key) ?? byFlow[FlowPair(birth.key.source, birth.key.destination)]
    }
    if slot == nil {
      slot = byMediaPeer[birth.peer]
      if slot == nil, let opened = open(.media, at: birth.firstArrival) {
        calls[Int(opened)].mediaPeer = birth.peer
        calls[Int(opened)].signallingPeer = birth.peer
        byMediaPeer[birth.peer] = opened
        slot = opened
      }
    }
    while bindings.count <= birth.streamIndex { bindings.append(StreamBinding()) }
    guard let slot else {
      if !birth.mediaOnly { counters.streamsWithoutCall += 1 }
      bindings[birth.streamIndex] = StreamBinding(
        firstArrival: birth.mediaOnly
          ? bindings[birth.streamIndex].firstArrival
          : birth.firstArrival.nanosecondsSinceEpoch,
        slot: -1, generation: 0, kind: .media)
      positionSlots[birth.position] = -2
      return
    }
    if !birth.mediaOnly {
      bindings[birth.streamIndex] = StreamBinding(
        firstArrival: birth.firstArrival.nanosecondsSinceEpoch, slot: slot,
        generation: calls[Int(slot)].generation, kind: calls[Int(slot)].kind)
    } else {
      bindings[birth.streamIndex].slot = slot
      bindings[birth.streamIndex].generation = calls[Int(slot)].generation
    }
    positionSlots[birth.position] = slot
    // The call's first media (a WebRTC or media call's answer): its earliest stream's first
    // packet, from the call's start for a stream older than the call (issue 38: the last
    // packet of the first tick was taken, up to 2 s late).
    let firstMedia = max(birth.firstArrival, calls[Int(slot)].start)
    calls[Int(slot)].quality.firstMedia = min(
      calls[Int(slot)].quality.firstMedia ?? firstMedia, firstMedia)
    calls[Int(slot)].streamCount += 1
    if calls[Int(slot)].streams.count < CallRecord.maxStreams {
      let direction = StreamDirection(
        source: birth.key.sourceAddress, destination: birth.key.destinationAddress,
        localNetworks: scorer.configuration.localNetworks)
      calls[Int(slot)].streams.append(
        CallRecord.Stream(key: birth.key, direction: direction, packets: 0))
      // A stream first seen now lost nothing before; one a new media call takes over, what
      // its counters say before the call's first window of it.
      calls[Int(slot)].tracks.append(CallStreamTrack(lostBefore: birth.mediaOnly ? nil : 0))
    }
  }

  /// The SIP call whose SDP names the stream's destination or source: the one naming both
  /// when the two disagree.
  private func signalledCall(of key: StreamKey) -> Int32? {
    let toCall = byEndpoint[key.destination]
    let fromCall = byEndpoint[key.source]
    switch (toCall, fromCall) {
    case (nil, nil): return nil
    case (let one?, nil), (nil, let one?): return one
    case (let to?, let from?):
      if to == from || calls[Int(to)].names(key.source) { return to }
      if calls[Int(from)].names(key.destination) { return from }
      return to
    }
  }
}
