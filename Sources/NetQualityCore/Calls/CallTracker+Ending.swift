/// When calls end, and their records.
extension CallTracker {
  /// Decides whether the call ended by now, if signalling did not say so already: an INVITE
  /// that got no final answer in time, a challenge never answered, a WebRTC session closed
  /// (DTLS alert, TURN release, consent gone), media ended by RTCP BYE, or silence for the
  /// timeout. At the end of a capture every open call ends there.
  ///
  /// Static, given the tracker's `settings`, like `score`.
  static func decideEnd(
    _ state: inout CallState, now: CaptureTime, settings: CallSettings, scorer: Scorer,
    inputEnded: Bool
  ) {
    guard state.pendingEnd == nil else { return }
    let timers = scorer.configuration.timers
    let lastActivity = state.quality.lastActivity
    let latest = max(lastActivity ?? state.lastSignal, state.lastSignal)
    switch state.kind {
    case .sip:
      if state.answer == nil {
        if let challenged = state.challengedAt {
          // Challenged: rejected with the 401 or 407 unless the INVITE comes again in time.
          if now.seconds(since: challenged) >= Self.challengeRetrySeconds {
            state.pendingEnd = (challenged, .rejected)
          }
        } else if state.cancelRequested,
          now.seconds(since: state.lastSignal) >= Self.transactionTimeoutSeconds
        {
          state.pendingEnd = (state.lastSignal, .cancelled)
        } else {
          let wait =
            state.sawProvisional ? Self.provisionalTimeoutSeconds : Self.transactionTimeoutSeconds
          if now.seconds(since: state.lastSignal) >= wait {
            state.pendingEnd = (state.lastSignal, .noAnswer)
          }
        }
      } else {
        let timeout = state.held ? settings.heldTimeoutSeconds : timers.timeoutAfterSeconds
        if now.seconds(since: latest) >= timeout { state.pendingEnd = (latest, .timeout) }
      }
    case .webrtc, .media:
      // A WebRTC session ends by a signal on its own flows; a media call by one on its peer's.
      let (endedAt, reason) = Scorer.end(
        of: state.window,
        sessionEnd: state.kind == .webrtc ? state.flowEnd : state.window.sessionEnd,
        activity: lastActivity ?? state.lastSignal, now: now, inputEnded: inputEnded)
      if let endedAt, let reason, endedAt >= state.start {
        state.pendingEnd = (endedAt, Self.endReason(reason))
      } else if state.kind == .webrtc, let check = state.lastCheck,
        now.seconds(since: check) >= Self.consentSeconds,
        now.seconds(since: lastActivity ?? check) >= timers.interruptedAfterSeconds
      {
        state.pendingEnd = (max(check, lastActivity ?? check), .consentExpired)
      } else if now.seconds(since: latest) >= timers.timeoutAfterSeconds {
        state.pendingEnd = (latest, .timeout)
      }
    }
    if state.pendingEnd == nil && inputEnded {
      state.pendingEnd = (latest, .captureEnd)
    }
  }

  static func endReason(_ reason: SessionEnd.Reason) -> CallRecord.EndReason {
    switch reason {
    case .dtlsAlert: .dtlsAlert
    case .turnAllocationReleased: .turnReleased
    case .rtcpBye: .rtcpBye
    }
  }

  /// The record of a call ending at `end`.
  func record(of state: CallState, end: CaptureTime, reason: CallRecord.EndReason) -> CallRecord {
    let key: String
    switch state.kind {
    case .sip: key = state.callID ?? ""
    case .webrtc: key = String(state.iceSession ?? 0, radix: 16)
    case .media: key = state.mediaPeer ?? ""
    }
    let end = max(end, state.start)
    var peers = state.peers
    if peers.isEmpty, let peer = state.signallingPeer { peers = [peer] }
    var record = CallRecord(
      id: Self.identifier(kind: state.kind, start: state.start, key: key), kind: state.kind,
      peers: peers, start: state.start, end: end, endReason: reason, startSeen: state.startSeen)
    record.callID = state.callID
    record.fromUser = state.fromUser
    record.toUser = state.toUser
    switch state.kind {
    case .sip:
      record.answer = state.answer
      record.finalStatus = state.finalStatus
      record.noResponse = state.awaitingResponse
      let provisional = state.ringing ?? state.finalStatusTime
      if state.startSeen, let provisional {
        record.postDialDelaySeconds = max(0, provisional.seconds(since: state.start))
      }
    case .webrtc, .media:
      record.answer = state.quality.firstMedia
    }
    var levels: [PeerLevelCounters.Direction: [Double]] = [:]
    for direction in PeerLevelCounters.Direction.allCases {
      levels[direction] = QualityLevel.allCases.map {
        state.quality.record?.levelCounters.seconds(direction, $0) ?? 0
      }
    }
    record.rx = state.quality.rx.direction(levelSeconds: levels[.rx] ?? [])
    record.tx = state.quality.tx.direction(levelSeconds: levels[.tx] ?? [])
    var streams = state.streams
    var spans = state.outageSpans
    // A stream still silent at the end while another of the call went on: an outage up to the
    // latest packet of the call (a leg that never came back). A call silent as a whole at its
    // end ended there (its end reason says how); that silence is no outage.
    let interrupted = interruptedAfterSeconds
    if let latest = state.tracks.compactMap(\.lastArrival).max() {
      for index in state.tracks.indices where index < streams.count {
        guard let last = state.tracks[index].lastArrival, !state.tracks[index].silenceAllowed,
          latest.seconds(since: last) >= interrupted, !state.wasHeld(from: last, to: latest),
          spans.count < OutageSpan.maxKept
        else { continue }
        streams[index].outages += 1
        streams[index].outageSeconds += latest.seconds(since: last)
        spans.append(OutageSpan(start: last, end: latest))
      }
    }
    (record.outages, record.outageSeconds) = OutageSpan.union(spans)
    record.streams = streams
    record.hops = CallRecord.Hop.pairs(of: streams)
    record.streamCount = state.streamCount
    record.codecs = state.codecs
    record.holds = state.holds
    record.heldSeconds = state.heldSeconds
    if let since = state.heldSince { record.heldSeconds += max(0, end.seconds(since: since)) }
    record.sipRetransmissions = state.sipRetransmissions
    record.forkedAnswers = state.forkedAnswers
    record.firstTick = state.firstTick
    record.lastTick = state.lastTick
    return record
  }

  /// 16 hex digits of FNV-1a over the kind, the start's whole second and the call's key: the
  /// same call gets the same id in every replay, and live as in a capture of the same wire
  /// made beside it (issue 38: two capture sockets stamp the same packet 0.6 µs apart, and the
  /// ids differed; the second changes under such a difference once in about a million calls).
  static func identifier(kind: CallRecord.Kind, start: CaptureTime, key: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    let second = start.nanosecondsSinceEpoch / 1_000_000_000
    for byte in "\(kind.rawValue)|\(second)|\(key)".utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The tick's ended SIP calls into the failure window.
  mutating func countFailures(_ ended: [CallRecord], at now: CaptureTime) {
    let sip = ended.filter { $0.kind == .sip }
    if !sip.isEmpty {
      failureWindow.append(
        (
          now, sip.count, sip.filter(\.isFailed).count,
          sip.filter { $0.isFailed && $0.statusClass == "5xx" }.count
        ))
    }
    let cutoff = now.advanced(bySeconds: -settings.failureWindowSeconds)
    if let first = failureWindow.firstIndex(where: { $0.time > cutoff }) {
      failureWindow.removeFirst(first)
    } else {
      failureWindow.removeAll()
    }
  }

  /// The share of the window's ended SIP calls that failed, and that failed with a 5xx; nil
  /// with fewer than `failureMinimumCalls` ended.
  func failureRatios() -> (Double?, Double?) {
    let ended = failureWindow.reduce(0) { $0 + $1.ended }
    guard ended >= max(1, settings.failureMinimumCalls) else { return (nil, nil) }
    let failed = failureWindow.reduce(0) { $0 + $1.failed }
    let serverFailed = failureWindow.reduce(0) { $0 + $1.serverFailed }
    return (Double(failed) / Double(ended), Double(serverFailed) / Double(ended))
  }

  mutating func forgetRecentlyEnded(before cutoff: CaptureTime) {
    recentlyEnded.removeValues { $0 < cutoff }
  }
}
