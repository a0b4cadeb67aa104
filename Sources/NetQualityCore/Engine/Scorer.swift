/// The engine's second half: every tick it turns a harvest of the analyzer's counters
/// (`StreamHarvest`) into windows, per-peer tx/rx levels, connection states and alerts, and
/// keeps what it needs between ticks (each stream's counters at the previous tick, each peer's
/// pooled windows and state, the probe sessions, the alerts).
///
/// Pure like the analyser: time comes only from the harvests and the `tick` calls. `Engine`
/// runs both halves in turn (a replay); the live agent keeps them under separate locks, so
/// capture goes on while a tick is scored.
public struct Scorer: Sendable {
  public private(set) var configuration: EngineConfiguration
  var alerts: AlertEvaluator
  var peers = PeerRecords()
  var baselines = ChunkedArray<StreamBaseline>()
  var streamTrackers = ChunkedArray<ConnectionTracker?>()
  /// Each stream's peer name, made once per stream (empty: not yet, or a reload changed the
  /// peer groups): formatting an address for every stream at every tick was a tenth of a
  /// tick's scoring under churn (perf, issue 37).
  var streamPeerNames = ChunkedArray<String>()
  /// Where each stream's peer record was at the tick before (`PeerRecords.take(_:hint:into:)`),
  /// or -1.
  var streamPeerPlaces = ChunkedArray<Int32>()
  /// Each stream's rank in the tick before's order by peer name (`sortedByName`), or -1, and
  /// how many ranks there were: the sort's hint.
  var streamRanks: [Int32] = []
  var streamRankCount = 0
  /// Probe sessions (see `record(probe:)`), and their indices by reflector: in an array, whose
  /// elements are changed in place, where a dictionary's modify accessor would put a value this
  /// large on the heap for every probe.
  var probeSessions = ContiguousArray<ProbeTracker>()
  var probeSessionIndex: [Endpoint: Int] = [:]
  var previousTick: CaptureTime?
  /// Capture interfaces whose link is down, since when.
  var linksDown: [UInt8: CaptureTime] = [:]
  /// Each capture interface's latest blind span (`CaptureBlindSpan`), from the harvests.
  var captureBlind: [UInt8: CaptureBlindSpan] = [:]
  /// Events that happened between ticks (a link going down): the next tick reports them with
  /// its own, so every consumer of ticks sees them.
  var pendingEvents: [EngineEvent] = []
  /// The replay reached the end of its input (see `Engine.finishReplay`).
  var inputEnded = false
  /// The fleet's counters since the start (`Snapshot.counters`).
  var counters = EngineCounters()
  /// Each media stream's counts and each address pair's feedback at the previous tick
  /// (`Scorer+Media.swift`).
  var mediaBaselines = ChunkedArray<MediaBaseline>()
  var feedbackBaselines: [AddressPair: FeedbackBaseline] = [:]
  /// The tick's media per peer (`mediaTick`), kept from tick to tick for its storage.
  var peerMedia = PeerMediaTable()
  var mediaFleet = MediaFleetCounters()
  /// Calls: SIP dialogs, WebRTC sessions and media sessions, and their records.
  var calls: CallTracker
  /// Silent peers at a fixed point are handed their last snapshot instead of being scored
  /// again (`RestingPeer`); a test turns it off to compare every tick with and without.
  var reusesRestingPeers = true
  /// Counts the reloads: a peer that came to rest under other settings is scored again.
  var settingsGeneration = 0
  /// Counts the ticks: a peer whose record was not scored in this one is forgotten
  /// (`forgetPeers`).
  var tickNumber: UInt32 = 0

  public init(configuration: EngineConfiguration = EngineConfiguration()) {
    self.configuration = configuration
    alerts = AlertEvaluator(rules: configuration.alertRules)
    calls = CallTracker(settings: configuration.calls)
  }

  /// Applies new settings (a configuration reload) keeping every peer and alert: the quality
  /// model, timers, local networks and alert rules take effect at the next tick.
  public mutating func reconfigure(_ newConfiguration: EngineConfiguration) {
    // The peer groups may have changed: every name is made again.
    streamPeerNames = ChunkedArray(repeating: "", count: streamPeerNames.count)
    feedbackBaselines = feedbackBaselines.mapValues {
      FeedbackBaseline(counts: $0.counts, peer: "")
    }
    configuration = newConfiguration
    settingsGeneration &+= 1
    alerts.replaceRules(newConfiguration.alertRules)
    calls.settings = newConfiguration.calls
  }

  /// The analyser's part of the settings: its own, with the engine's local networks.
  public static func analyzerConfiguration(_ configuration: EngineConfiguration)
    -> StreamAnalyzer.Configuration
  {
    var result = configuration.analyzer
    result.localNetworks = configuration.localNetworks
    return result
  }

  /// Streams silent since this time are forgotten at the tick at `now`: silent for the timeout
  /// and the grace after it (memory stays bounded however long the agent runs).
  public func forgetCutoff(at now: CaptureTime) -> CaptureTime {
    now.advanced(
      bySeconds:
        -(configuration.timers.timeoutAfterSeconds + configuration.forgetAfterTimeoutSeconds))
  }

  /// No peer and no probe session left.
  public var isIdle: Bool { peers.isEmpty && probeSessions.isEmpty }

  /// Ticks up to `time` were skipped while the engine was idle (a replay over a long silence):
  /// the next window starts there, not at the last tick before the silence.
  public mutating func skipTicks(through time: CaptureTime) {
    previousTick = time
  }

  /// The replay reached the end of its input: a call whose end was signalled in the clear has
  /// ended at the next tick, without the grace the live agent waits.
  mutating func markInputEnded() { inputEnded = true }

  /// A capture interface lost or regained its link. Peers reached only through interfaces
  /// that are down are down at once (level 6, state disconnected) from the next tick, without
  /// waiting for the 12 s of silence; the events for the peers whose streams were last seen on
  /// it come back now.
  public mutating func linkChanged(interface: UInt8, up: Bool, at time: CaptureTime)
    -> [EngineEvent]
  {
    if up {
      guard linksDown.removeValue(forKey: interface) != nil else { return [] }
    } else {
      guard linksDown[interface] == nil else { return [] }
      linksDown[interface] = time
    }
    let affected = peers.names { $0.interfaces.contains(interface) }.sorted()
    let events = affected.map {
      EngineEvent(time: time, kind: up ? .linkUp : .linkDown, peer: $0)
    }
    pendingEvents += events
    return events
  }

  /// The time at each level shown and the worst of the last minute of the named peers (those
  /// with series of their own in `/metrics`); peers not known are left out.
  public func levelCounters(of names: some Sequence<String>) -> [String: PeerLevelCounters] {
    var result: [String: PeerLevelCounters] = [:]
    for name in names {
      if let record = peers[name] { result[name] = record.levelCounters }
    }
    return result
  }

  /// The alerts firing now.
  public var firingAlerts: [Alert] { alerts.ordered }

  /// Closes the window that ends at `now`, from the analyzer's counters harvested at `now`, in
  /// phases (`Scorer+Tick`): the streams' windows, their media, each peer scored from its
  /// streams and probes, the peers gone forgotten, the calls, the host's levels.
  /// The harvest's streams are drained (each chunk let go once its windows are made): the
  /// harvest and the windows are never both whole (16 MB and 13 MB at 100,000 streams).
  public mutating func tick(at now: CaptureTime, harvest: inout StreamHarvest)
    -> Engine.TickResult
  {
    let interval =
      previousTick.map { max(0, now.seconds(since: $0)) } ?? configuration.tickIntervalSeconds
    previousTick = now
    tickNumber &+= 1
    // A span still open holds for the harvest that reports it: each harvest reports those
    // still open again, and one that closed without a gap (an overload) must not stay open.
    if captureBlind.contains(where: { $0.value.to == nil }) {
      captureBlind = captureBlind.filter { $0.value.to != nil }
    }
    for span in harvest.blindSpans { captureBlind[span.interface] = span }
    let tick = windowStreams(&harvest, now: now, interval: interval)
    let media = mediaTick(harvest, interval: interval)
    var events = pendingEvents
    pendingEvents.removeAll()
    events += resolveRetiredAlerts(at: now)
    let snapshots = scorePeers(
      tick, harvest: harvest, now: now, interval: interval, events: &events)
    events += forgetPeers(scored: snapshots.count, at: now)
    let (callsSnapshot, callEvents) = tickCalls(
      at: now, interval: interval, harvest: &harvest, windows: tick.windows, facts: tick.facts,
      names: tick.names)
    events += callEvents
    let (hostRx, hostTx) = Self.hostLevels(snapshots)
    events.sort { ($0.time, $0.peer) < ($1.time, $1.peer) }
    for event in events { counters.record(event) }
    var snapshot = Snapshot(
      time: now, intervalSeconds: interval, hostRx: hostRx, hostTx: hostTx, peers: snapshots,
      streams: tick.windows, counters: counters, calls: callsSnapshot)
    snapshot.media = MediaTickSnapshot(streams: media, fleet: mediaFleet)
    follow(harvest.remap)
    alerts.settleOrder()
    shrinkAfterChurn()
    return Engine.TickResult(snapshot: snapshot, events: events)
  }

  /// The analyzer compacted its streams (`StreamAnalyzer.compactIfSparse`): the per-stream
  /// state moves to the new indices with them.
  private mutating func follow(_ remap: [Int32]) {
    guard !remap.isEmpty else { return }
    calls.follow(remap)
    // The sort's hint starts over (one tick sorted without it).
    (streamRanks, streamRankCount) = ([], 0)
    let live = remap.lazy.filter { $0 >= 0 }.count
    var movedBaselines = ChunkedArray(repeating: StreamBaseline(), count: live)
    var movedTrackers = ChunkedArray<ConnectionTracker?>(repeating: nil, count: live)
    var movedNames = ChunkedArray(repeating: "", count: live)
    var movedPlaces = ChunkedArray<Int32>(repeating: -1, count: live)
    var movedMedia = ChunkedArray(repeating: MediaBaseline(), count: live)
    for (old, new) in remap.enumerated() where new >= 0 {
      if old < baselines.count {
        movedBaselines[Int(new)] = baselines[old]
        movedTrackers[Int(new)] = streamTrackers[old]
        movedNames[Int(new)] = streamPeerNames[old]
      }
      if old < streamPeerPlaces.count { movedPlaces[Int(new)] = streamPeerPlaces[old] }
      if old < mediaBaselines.count { movedMedia[Int(new)] = mediaBaselines[old] }
    }
    baselines = movedBaselines
    streamTrackers = movedTrackers
    streamPeerNames = movedNames
    streamPeerPlaces = movedPlaces
    mediaBaselines = movedMedia
  }

  /// The stream's peer name: made at its first tick and kept (`streamPeerNames`); after
  /// `streamWindow`, which makes room for it and clears it for a new stream in the slot.
  mutating func peerName(ofStream stream: StreamHarvest.Stream) -> String {
    let index = Int(stream.index)
    if streamPeerNames[index].isEmpty {
      streamPeerNames[index] = configuration.peerName(stream.peer)
    }
    return streamPeerNames[index]
  }

  /// The peer name this tick made for the stream at `index` if that is the stream that
  /// started at `firstArrival` (a media stream the harvest's streams did not carry: made now).
  /// Inlined: asked for every media stream at every tick, a call copied the whole scorer
  /// (1.5 KB) into a temporary for it (see `captureBlindSpans(of:)`).
  @inline(__always)
  func knownPeerName(ofStream index: Int, firstArrival: CaptureTime, address: IPAddress)
    -> String
  {
    guard index < streamPeerNames.count, !streamPeerNames[index].isEmpty,
      baselines[index].firstArrival == firstArrival
    else { return configuration.peerName(address) }
    return streamPeerNames[index]
  }

  /// A dictionary keeps its capacity when entries leave: after a wave of peers is forgotten,
  /// the tables are rebuilt at the size of what is left, so memory comes back.
  private mutating func shrinkAfterChurn() {
    peers.shrinkAfterChurn()
    alerts.shrinkAfterChurn()
  }

  /// The window of one stream since the previous tick.
  mutating func streamWindow(
    _ stream: StreamHarvest.Stream, feedback: StreamHarvest.Feedback,
    senderCadence: RTCPCadence?, now: CaptureTime, interval: Double
  )
    -> StreamWindow
  {
    let (index, direction, counts) = (Int(stream.index), stream.direction, stream.counts)
    while baselines.count <= index {
      baselines.append(StreamBaseline())
      streamTrackers.append(nil)
    }
    while streamPeerNames.count <= index { streamPeerNames.append("") }
    while streamPeerPlaces.count <= index { streamPeerPlaces.append(-1) }
    if baselines[index].firstArrival != stream.firstArrival {
      // A new stream in a forgotten one's slot: start from zero.
      baselines[index] = StreamBaseline(firstArrival: stream.firstArrival)
      streamTrackers[index] = nil
      streamPeerNames[index] = ""
    }
    let change = baselines[index].advance(to: counts)
    let loss = WindowLoss(change)
    var tracker = streamTrackers[index] ?? ConnectionTracker(firstSeen: stream.lastArrival)
    let activity = max(stream.lastArrival, feedback.lastSenderRTCPTime ?? stream.lastArrival)
    // The sender's own RTCP keeps a stream alive and on hold while its media is silent.
    var control: ConnectionTracker.Control?
    if let lastRTCP = feedback.lastSenderRTCPTime, let cadence = senderCadence {
      control = ConnectionTracker.Control(
        lastMedia: stream.lastArrival, lastRTCP: lastRTCP,
        allowanceSeconds: cadence.allowanceSeconds)
    }
    _ = tracker.advance(
      to: now, lastActivity: activity, resumedAt: stream.resumedAt,
      endedAt: feedback.goodbyeTime, control: control, timers: configuration.timers)
    streamTrackers[index] = tracker
    let roundTrip = feedback.roundTrip.map { $0.seconds * 1000 }
    let window = StreamWindow(
      key: stream.key, direction: direction, role: stream.role, state: tracker.state,
      packets: change.packets,
      expected: loss.expected, lost: loss.lost, lostChange: loss.lostChange,
      duplicates: change.duplicates, late: change.late,
      bitsPerSecond: interval > 0
        ? Double(change.payloadBytes) * 8 / interval : 0,
      jitterMilliseconds: stream.windowMaxJitterSeconds.map { $0 * 1000 },
      roundTripMilliseconds: roundTrip, packetsTotal: counts.packets,
      lostTotal: max(0, counts.expected - counts.counted))
    return window
  }
}
