/// SIP dialogs (RFC 3261): a call per Call-ID, from its INVITE through provisional and final
/// responses, ACK, re-INVITEs and UPDATEs (holds, codec changes: RFC 3264), to BYE or CANCEL.
extension CallTracker {
  mutating func apply(_ event: SignallingJournal.SIPEvent, scorer: Scorer) {
    let message = event.message
    var slot = byCallID[message.callID]
    if slot == nil {
      guard recentlyEnded[message.callID] == nil, let opened = pickUp(event, scorer: scorer)
      else { return }
      slot = opened
    }
    guard let slot else { return }
    var state = calls[Int(slot)]
    defer { calls[Int(slot)] = state }
    state.lastSignal = max(state.lastSignal, event.time)
    if message.isRequest {
      request(event, &state)
    } else {
      response(event, &state)
    }
    if let description = message.sessionDescription {
      learn(description, from: side(of: event, in: state), at: event.time, slot: slot, &state)
    }
  }

  /// A call for a message of a Call-ID not seen before: an INVITE starts one; a response to an
  /// INVITE or an in-dialog INVITE (a capture begun mid-call) picks one up; anything else
  /// belongs to no call this tracker knows.
  private mutating func pickUp(_ event: SignallingJournal.SIPEvent, scorer: Scorer) -> Int32? {
    let message = event.message
    guard message.method == .invite else { return nil }
    let initial = message.isRequest && message.toTag == nil
    if initial, silentBySource[event.source.address, default: 0] >= settings.maxSilentPerSource {
      counters.notTrackedSilentSource += 1
      return nil
    }
    guard let slot = open(.sip, at: event.time) else { return nil }
    var state = calls[Int(slot)]
    state.callID = message.callID
    state.startSeen = initial
    state.inviteCSeq = message.cseq
    // The caller is the INVITE's sender (From), the callee its receiver (To): a response
    // travels the other way.
    let (caller, callee) =
      message.isRequest ? (event.source, event.destination) : (event.destination, event.source)
    state.callerSignalling = caller
    state.calleeSignalling = callee
    state.callerTag = message.fromTag
    state.fromUser = message.fromUser.map(settings.userMasking.mask)
    state.toUser = message.toUser.map(settings.userMasking.mask)
    let local = scorer.configuration.localNetworks
    let calleeLocal = local.contains { $0.contains(callee.address) }
    let callerLocal = local.contains { $0.contains(caller.address) }
    state.signallingPeer = scorer.configuration.peerName(
      calleeLocal && !callerLocal ? caller.address : callee.address)
    if initial {
      state.requestsSeen.insert(Self.hopIdentity(of: event))
      state.awaitingResponse = true
      silentBySource[caller.address, default: 0] += 1
    } else if message.isRequest {
      // An in-dialog INVITE: the call was answered before the capture began.
      state.answer = event.time
    }
    calls[Int(slot)] = state
    byCallID[message.callID] = slot
    return slot
  }

  private mutating func request(_ event: SignallingJournal.SIPEvent, _ state: inout CallState) {
    let message = event.message
    let identity = Self.hopIdentity(of: event)
    if state.requestsSeen.contains(identity) && message.method != .ack {
      // The same request again on the same hop: a retransmission (RFC 3261 section
      // 17.1.1.2). A proxy's copy on its next hop is a new one (issue 38: 4 false
      // retransmissions through a proxy live, 5 offline).
      if event.time > state.start { state.sipRetransmissions += 1 }
      return
    }
    if state.requestsSeen.count < 64 { state.requestsSeen.insert(identity) }
    switch message.method {
    case .invite where message.toTag == nil && state.answer == nil:
      // The INVITE sent again with a new CSeq: after a 401 or 407, with credentials (RFC 3261
      // section 22.2): the same call goes on.
      state.inviteCSeq = message.cseq
      state.challengedAt = nil
      state.finalStatus = nil
      if state.pendingEnd?.reason == .rejected { state.pendingEnd = nil }
    case .bye:
      guard state.pendingEnd == nil || state.pendingEnd?.reason == .timeout else { return }
      let byCaller = isFromCaller(event, state)
      state.pendingEnd = (event.time, byCaller ? .byeCaller : .byeCallee)
    case .cancel:
      if state.answer == nil { state.cancelRequested = true }
    default:
      break
    }
  }

  private mutating func response(_ event: SignallingJournal.SIPEvent, _ state: inout CallState) {
    let message = event.message
    guard let status = message.statusCode else { return }
    if state.awaitingResponse {
      state.awaitingResponse = false
      heardFrom(state.callerSignalling)
    }
    // The same response again on the same hop is a retransmission (a 2xx is resent until
    // its ACK, RFC 3261 section 13.3.1.4); a proxy's copy on the previous hop is not.
    let key = Self.hopIdentity(of: event)
    if state.responsesSeen.contains(key) {
      state.sipRetransmissions += 1
      return
    }
    if state.responsesSeen.count < 64 { state.responsesSeen.insert(key) }
    guard message.method == .invite else { return }
    let initial = message.cseq == state.inviteCSeq && state.answer == nil
    guard initial else {
      // A response to a re-INVITE (its SDP is learnt by the caller) or a 2xx of another fork.
      if (200...299).contains(status), message.cseq == state.inviteCSeq,
        message.toTag != state.calleeTag
      {
        state.forkedAnswers += 1
      }
      return
    }
    switch status {
    case 100:
      break
    case 101...199:
      state.sawProvisional = true
      if status == 180 || status == 183 { state.ringing = state.ringing ?? event.time }
    case 200...299:
      state.answer = event.time
      state.finalStatus = status
      state.finalStatusTime = event.time
      state.calleeTag = message.toTag
      state.challengedAt = nil
      // A 2xx after a CANCEL crossed it: the call is answered (RFC 3261 section 9.1). A
      // failure that another fork's answer overtook goes too.
      state.cancelRequested = false
      if state.pendingEnd?.reason == .rejected || state.pendingEnd?.reason == .cancelled {
        state.pendingEnd = nil
      }
    default:
      state.finalStatus = status
      state.finalStatusTime = event.time
      if status == 401 || status == 407 {
        state.challengedAt = event.time
      } else if state.pendingEnd == nil {
        state.pendingEnd =
          (event.time, state.cancelRequested && status == 487 ? .cancelled : .rejected)
      }
    }
  }

  /// Whether an in-dialog request comes from the caller: by its From tag (RFC 3261 section
  /// 12.2.1.1: the caller's requests carry its tag in From), else by its source.
  private func isFromCaller(_ event: SignallingJournal.SIPEvent, _ state: CallState) -> Bool {
    if let tag = event.message.fromTag, let caller = state.callerTag { return tag == caller }
    return event.source.address == state.callerSignalling?.address
  }

  enum Side { case caller, callee }

  /// Which party sent the message: a request by its From tag; a response comes from the
  /// party its request went to.
  private func side(of event: SignallingJournal.SIPEvent, in state: CallState) -> Side {
    let fromCaller = isFromCaller(event, state)
    return event.message.isRequest == fromCaller ? .caller : .callee
  }

  /// An SDP offer or answer from `side` (RFC 3264 section 6: each names where its sender
  /// receives): the media endpoints that bind streams, the codec the answer chose, and holds.
  private mutating func learn(
    _ description: SessionDescription, from side: Side, at time: CaptureTime, slot: Int32,
    _ state: inout CallState
  ) {
    // RFC 3389 comfort noise offered or answered for audio: its sender may go silent between
    // talk spurts (voice activity detection), and such a silence is no outage.
    if description.media.contains(where: { media in
      media.kind == "audio"
        && media.payloadFormats.values.contains { $0.encodingName.uppercased() == "CN" }
    }) {
      state.comfortNoise = true
    }
    for media in description.media where !state.names(media.endpoint) {
      // Bounded: a call's SDP names a few endpoints, re-INVITEs may move them.
      guard state.endpoints.count < 16 else { break }
      state.endpoints.append(media.endpoint)
    }
    for media in description.media {
      byEndpoint[media.endpoint] = slot
    }
    // The answer's first format is what the answerer sends (RFC 3264 section 6.1); a later
    // one that differs is a codec change.
    if side == .callee || state.answer != nil,
      let codec = description.media.first(where: { $0.kind == "audio" })?.firstEncodingName
        ?? description.media.first?.firstEncodingName,
      state.codecs.last != codec, state.codecs.count < 8
    {
      state.codecs.append(codec)
    }
    // Hold (RFC 3264 section 8.4): an offer of sendonly or inactive (or the null address)
    // from either party after the answer; resumed by an offer back to sendrecv.
    guard state.answer != nil, time > (state.answer ?? time) else { return }
    let holding = description.allMedia.contains { media in
      media.direction == .sendonly || media.direction == .inactive
        || (media.endpoint.address == IPAddress(ipv4: 0) && media.endpoint.port != 0)
    }
    if holding && !state.held {
      state.held = true
      state.heldSince = time
      state.holds += 1
    } else if !holding && state.held
      && description.allMedia.contains(where: { $0.direction == .sendrecv && $0.endpoint.port != 0 }
      )
    {
      state.held = false
      if let since = state.heldSince {
        state.heldSeconds += max(0, time.seconds(since: since))
        state.lastHold = OutageSpan(start: since, end: time)
      }
      state.heldSince = nil
      // The media's silence while held is no outage: its state starts again from the resume.
      if var record = state.quality.record {
        record.tracker = ConnectionTracker(firstSeen: time)
        state.quality.record = record
      }
      state.quality.lastActivity = max(state.quality.lastActivity ?? time, time)
    }
  }

  /// A SIP message as it crossed one hop: its method, CSeq, status and To tag (a response),
  /// and the addresses it went between. Seen twice on one hop, it was sent again.
  static func hopIdentity(of event: SignallingJournal.SIPEvent) -> UInt64 {
    var identity = Hasher()
    identity.combine(event.message.cseq)
    identity.combine(event.message.method)
    identity.combine(event.message.statusCode)
    identity.combine(event.message.isRequest ? nil : event.message.toTag)
    identity.combine(event.source)
    identity.combine(event.destination)
    return UInt64(bitPattern: Int64(identity.finalize()))
  }
}
