/// Finds calls and keeps them until they end: SIP dialogs from the signalling journal, WebRTC
/// sessions from ICE checks, and for every other stream its peer's continuous media session.
/// Each stream is bound to one call when the tick first sees it, by what was signalled before
/// its first packet; each tick scores every open call from its streams' windows, and a call
/// that ended becomes a `CallRecord` in the tick's snapshot.
///
/// Part of the scorer: pure, per tick, fed the harvest's journal and streams. Bounded: at most
/// `CallSettings.maxTracked` calls open; beyond, new calls are counted and not tracked.
public struct CallTracker: Sendable {
  var settings: CallSettings
  var calls: [CallState] = []
  var free: [Int32] = []
  var liveCount = 0
  /// The next call's generation, unique whatever its slot: a stream bound to a call that ended
  /// never sees a later call as its own, even in a slot let go and made again
  /// (`releaseVacantSlots`).
  var nextGeneration: UInt32 = 1
  /// Indexes into `calls`.
  var byCallID: [String: Int32] = [:]
  var byEndpoint: [Endpoint: Int32] = [:]
  var bySession: [UInt64: Int32] = [:]
  var byFlow: [FlowPair: Int32] = [:]
  var byMediaPeer: [String: Int32] = [:]
  /// SIP calls that ended lately: a late retransmission of their INVITE or final response
  /// makes no new call (RFC 3261 section 17.1.1.2, Timer D and H: 32 s).
  var recentlyEnded: [String: CaptureTime] = [:]
  /// Each stream's call, by the analyzer's stream index.
  var bindings = ChunkedArray<StreamBinding>()
  /// The streams of this tick not yet bound, and the call slot of each stream of the tick.
  var births: [Birth] = []
  var positionSlots: [Int32] = []
  var previousTick: CaptureTime?
  var counters = CallCounters()
  /// SIP calls open whose INVITE nothing answered yet, by the caller's address
  /// (`CallSettings.maxSilentPerSource`).
  var silentBySource: [IPAddress: Int32] = [:]
  /// Calls ended unanswered and recorded in the current minute, by source
  /// (`CallSettings.silentRecordsPerSourcePerMinute`), and the minute.
  var silentRecords: [IPAddress: Int32] = [:]
  var silentRecordsInMinute = 0
  var silentRecordsMinute: Int64 = 0
  /// Ended SIP calls per tick over the failure window: (tick, ended, failed, 5xx).
  var failureWindow: [(time: CaptureTime, ended: Int, failed: Int, serverFailed: Int)] = []
  /// The scorer's `interrupted` timer as of the latest tick: the shortest silence that is an
  /// outage of a call's stream.
  var interruptedAfterSeconds = ConnectionTimers().interruptedAfterSeconds

  /// A stream the tick sees for the first time (or whose call ended while it goes on).
  struct Birth {
    var position: Int
    var streamIndex: Int
    var firstArrival: CaptureTime
    var key: StreamKey
    var peer: String
    /// A stream whose media call ended: only a media call takes it.
    var mediaOnly: Bool
  }

  /// RFC 3261 section 17.1.1.2: Timer B, 64 x T1 (T1 = 500 ms), for an INVITE with no
  /// response at all (and for a cancelled one to complete).
  static let transactionTimeoutSeconds = 32.0
  /// RFC 3261 section 16.6 step 11: Timer C, more than 3 minutes, while provisional
  /// responses keep the INVITE going.
  static let provisionalTimeoutSeconds = 180.0
  /// How long a caller challenged with 401 or 407 may take to send the INVITE again with
  /// credentials (RFC 3261 section 22.2 sets no bound; a user may be typing a password): as
  /// long as Timer C. A capture showed a retry 33 s after the challenge.
  static let challengeRetrySeconds = provisionalTimeoutSeconds
  /// RFC 7675 section 5.1: consent expires 30 s after the last check.
  static let consentSeconds = 30.0

  public init(settings: CallSettings = CallSettings()) {
    self.settings = settings
  }

  /// Calls open now.
  public var activeCount: Int { liveCount }

  // MARK: Slots

  /// A new call, or nil when `maxTracked` are open (counted).
  mutating func open(_ kind: CallRecord.Kind, at time: CaptureTime) -> Int32? {
    guard liveCount < settings.maxTracked else {
      counters.notTracked += 1
      return nil
    }
    var state = CallState(kind: kind, start: time)
    state.isLive = true
    state.generation = nextGeneration
    nextGeneration &+= 1
    let slot: Int32
    if let reused = free.popLast() {
      slot = reused
      calls[Int(slot)] = state
    } else {
      slot = Int32(calls.count)
      calls.append(state)
    }
    liveCount += 1
    counters.started[kind, default: 0] += 1
    return slot
  }

  /// Lets a call's slot and index entries go.
  mutating func close(_ slot: Int32) {
    let state = calls[Int(slot)]
    if state.awaitingResponse { heardFrom(state.callerSignalling) }
    if let callID = state.callID, byCallID[callID] == slot { byCallID[callID] = nil }
    for endpoint in state.endpoints where byEndpoint[endpoint] == slot {
      byEndpoint[endpoint] = nil
    }
    if let session = state.iceSession, bySession[session] == slot { bySession[session] = nil }
    for flow in state.flows where byFlow[flow] == slot { byFlow[flow] = nil }
    if let peer = state.mediaPeer, byMediaPeer[peer] == slot { byMediaPeer[peer] = nil }
    var vacant = CallState.vacant
    vacant.generation = state.generation &+ 1
    calls[Int(slot)] = vacant
    free.append(slot)
    liveCount -= 1
  }

  func isLive(_ slot: Int32, generation: UInt32) -> Bool {
    slot >= 0 && Int(slot) < calls.count && calls[Int(slot)].isLive
      && calls[Int(slot)].generation == generation
  }

  // MARK: The tick

  /// The call slot of a stream of the tick (its position in the tick's windows), or -1 while
  /// it waits to be bound with the tick's signalling (`births`), or -2: none (its call ended).
  mutating func note(_ stream: StreamHarvest.Stream, peer: String) {
    let index = Int(stream.index)
    let position = positionSlots.count
    if index < bindings.count,
      bindings[index].firstArrival == stream.firstArrival.nanosecondsSinceEpoch
    {
      let binding = bindings[index]
      if isLive(binding.slot, generation: binding.generation) {
        positionSlots.append(binding.slot)
        return
      }
      // The call ended: a stream of a SIP or WebRTC call stays that call's; a stream of a
      // media session that goes on (or one no call had room for) starts its peer's next one
      // once it sends again.
      guard binding.kind == .media, stream.lastArrival > previousTick ?? .zero else {
        positionSlots.append(-2)
        return
      }
      births.append(
        Birth(
          position: position, streamIndex: index, firstArrival: stream.lastArrival,
          key: stream.key, peer: peer, mediaOnly: true))
      positionSlots.append(-1)
      return
    }
    births.append(
      Birth(
        position: position, streamIndex: index, firstArrival: stream.firstArrival,
        key: stream.key, peer: peer, mediaOnly: false))
    positionSlots.append(-1)
  }

  /// Closes the tick at `now`: replays the journal with the births in time order, scores every
  /// open call from the tick's windows, ends the calls whose end came, and returns the tick's
  /// calls. `windows`, `facts` and `names` are the tick's streams in the order `note` saw them.
  mutating func tick(
    at now: CaptureTime, interval: Double, journal: SignallingJournal,
    signalling: SignallingCounters, windows: [StreamWindow], facts: [StreamFacts],
    names: [String], harvest: StreamHarvest, scorer: Scorer, inputEnded: Bool
  ) -> CallsSnapshot {
    interruptedAfterSeconds = scorer.configuration.timers.interruptedAfterSeconds
    replay(journal.entries, scorer: scorer)
    for position in positionSlots.indices {
      let slot = positionSlots[position]
      guard slot >= 0 else { continue }
      let fact = facts[position]
      calls[Int(slot)].window.add(
        windows[position], fact, feedback: harvest.feedback(at: fact.feedbackIndex),
        peer: harvest.facts(at: fact.peerFactsIndex))
      calls[Int(slot)].hasWindow = true
      // A method of the call, changed in place: a method of the tracker given the call inout
      // read `self` (the whole array) during the access, so every stream of the tick copied
      // every call (quadratic in peers: 4,000 streams took 3 s a replay, issue 37).
      calls[Int(slot)].account(
        windows[position], fact, feedback: harvest.feedback(at: fact.feedbackIndex),
        peer: names[position],
        interruptedAfterSeconds: interruptedAfterSeconds)
    }
    var snapshot = CallsSnapshot()
    var unrecorded: [IPAddress: Int] = [:]
    for index in calls.indices where calls[index].isLive {
      // Changed in its slot, never copied nor moved: a copy was 1.4 KB and a retain of each
      // of its references per live call per tick (4 % of a tick under churn), and moving it
      // out and back two more copies of it (5 %, perf, issue 37). `score` and `decideEnd` are
      // static for that: a method of the tracker cannot take `calls[index]` inout while it
      // reads `self`.
      calls[index].firstTick = calls[index].firstTick ?? now
      calls[index].lastTick = now
      Self.score(
        &calls[index], now: now, interval: interval, previousTick: previousTick, scorer: scorer)
      Self.decideEnd(
        &calls[index], now: now, settings: settings, scorer: scorer, inputEnded: inputEnded)
      calls[index].window = PeerWindow()
      calls[index].hasWindow = false
      // Recorded in the tick it ends (issue 38: two ticks after its BYE): the tick holds
      // every packet of the call up to its end. An end that needs the media to stop after it
      // (a DTLS alert, a TURN release) is decided only once it did (`Scorer.end`).
      guard let end = calls[index].pendingEnd, inputEnded || now >= end.time else {
        snapshot.active[calls[index].kind, default: 0] += 1
        continue
      }
      let state = calls[index]  // a call that ends: copied once
      let record = self.record(of: state, end: end.time, reason: end.reason)
      counters.record(ended: record)
      if state.awaitingResponse, let source = state.callerSignalling?.address,
        !admitsSilentRecord(from: source, at: end.time)
      {
        unrecorded[source, default: 0] += 1
        counters.unrecordedSilent += 1
      } else {
        snapshot.ended.append(record)
      }
      if let callID = state.callID, recentlyEnded.count < settings.maxTracked {
        recentlyEnded[callID] = end.time
      }
      close(Int32(index))
    }
    listOpenCalls(in: &snapshot, now: now)
    snapshot.ended.sort { ($0.end, $0.id) < ($1.end, $1.id) }
    snapshot.unrecorded = UnrecordedCalls.list(unrecorded)
    countFailures(snapshot.ended, at: now)
    forgetRecentlyEnded(before: now.advanced(bySeconds: -Self.transactionTimeoutSeconds))
    positionSlots.removeAll(keepingCapacity: true)
    births.removeAll(keepingCapacity: true)
    releaseVacantSlots()
    previousTick = now
    snapshot.counters = counters
    snapshot.signalling = signalling
    (snapshot.failureRatio, snapshot.serverFailureRatio) = failureRatios()
    return snapshot
  }

  /// The journal in capture order, with each stream born in the tick bound at its first
  /// arrival: by what had been signalled before it.
  private mutating func replay(_ entries: [SignallingJournal.Entry], scorer: Scorer) {
    births.sort { ($0.firstArrival, $0.streamIndex) < ($1.firstArrival, $1.streamIndex) }
    var next = 0
    for entry in entries {
      while next < births.count, births[next].firstArrival < entry.time {
        bind(births[next], scorer: scorer)
        next += 1
      }
      switch entry {
      case .sip(let event): apply(event, scorer: scorer)
      case .ice(let check): apply(check)
      case .flowEnd(let end): apply(end)
      }
    }
    while next < births.count {
      bind(births[next], scorer: scorer)
      next += 1
    }
  }

  /// Whether a call from `source` that ended at `time` with no response at all is recorded:
  /// the first `silentRecordsPerSourcePerMinute` of each source in each minute are, up to
  /// `silentRecordsPerMinute` in all.
  private mutating func admitsSilentRecord(from source: IPAddress, at time: CaptureTime) -> Bool {
    let minute = time.nanosecondsSinceEpoch / 60_000_000_000
    if minute != silentRecordsMinute {
      silentRecords.removeAll(keepingCapacity: true)
      silentRecordsInMinute = 0
      silentRecordsMinute = minute
    }
    let recorded = silentRecords[source, default: 0]
    guard recorded < settings.silentRecordsPerSourcePerMinute,
      silentRecordsInMinute < settings.silentRecordsPerMinute
    else { return false }
    silentRecords[source] = recorded + 1
    silentRecordsInMinute += 1
    return true
  }

  /// A call from `caller` awaiting its first response got one, or ended.
  mutating func heardFrom(_ caller: Endpoint?) {
    guard let address = caller?.address, let count = silentBySource[address] else { return }
    silentBySource[address] = count > 1 ? count - 1 : nil
  }

  /// The analyzer compacted its streams: the bindings move with them (see `Scorer.follow`).
  mutating func follow(_ remap: [Int32]) {
    guard !remap.isEmpty else { return }
    let live = remap.lazy.filter { $0 >= 0 }.count
    var moved = ChunkedArray(repeating: StreamBinding(), count: live)
    for (old, new) in remap.enumerated() where new >= 0 && old < bindings.count {
      moved[Int(new)] = bindings[old]
    }
    bindings = moved
  }

  /// After a wave of calls ended, their memory comes back: the vacant slots at the end of
  /// `calls` (1,368 bytes each) are let go once they are a quarter of them, and the indexes
  /// are rebuilt at their size (a dictionary keeps its capacity when entries leave). A TURN
  /// host's churn left 137 MB of vacant slots behind with no call open (issue 37).
  mutating func releaseVacantSlots() {
    var kept = calls.count
    while kept > 0 && !calls[kept - 1].isLive { kept -= 1 }
    if calls.count - kept >= max(256, calls.count / 4) {
      var smaller: [CallState] = []
      smaller.reserveCapacity(kept)
      smaller.append(contentsOf: calls[..<kept])
      calls = smaller
      free.removeAll { $0 >= kept }
      if free.capacity > 4 * max(free.count, 256) {
        var fewer: [Int32] = []
        fewer.reserveCapacity(free.count)
        fewer.append(contentsOf: free)
        free = fewer
      }
    }
    func shrunk<Key: Hashable, Value>(_ index: inout [Key: Value]) {
      guard index.capacity > 4 * max(index.count, 256) else { return }
      index = Dictionary(uniqueKeysWithValues: index.map { ($0.key, $0.value) })
    }
    shrunk(&byCallID)
    shrunk(&byEndpoint)
    shrunk(&bySession)
    shrunk(&byFlow)
    shrunk(&byMediaPeer)
    shrunk(&recentlyEnded)
    shrunk(&silentBySource)
  }

  /// The signalled calls open at `now` with their figures so far (`CallsSnapshot.open`): the
  /// answered ones and WebRTC sessions first, then INVITEs awaiting a response, oldest slots
  /// first within each, up to `maxListedOpen`.
  private func listOpenCalls(in snapshot: inout CallsSnapshot, now: CaptureTime) {
    let signalled = (snapshot.active[.sip] ?? 0) + (snapshot.active[.webrtc] ?? 0)
    guard signalled > 0 else { return }
    snapshot.open.reserveCapacity(min(signalled, CallsSnapshot.maxListedOpen))
    for awaiting in [false, true] {
      for index in calls.indices
      where calls[index].isLive && calls[index].kind != .media
        && calls[index].awaitingResponse == awaiting
      {
        guard snapshot.open.count < CallsSnapshot.maxListedOpen else { break }
        var record = record(of: calls[index], end: now, reason: .timeout)
        record.isOpen = true
        snapshot.open.append(record)
      }
    }
    snapshot.openUnlisted = signalled - snapshot.open.count
  }
}
