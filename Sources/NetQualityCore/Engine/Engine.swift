/// The engine: packets in, and every tick a snapshot (per-stream windows, per-peer tx/rx levels,
/// connection states) and the events since the previous tick.
///
/// Pure like the analyser inside it: time comes only from the packets and the `tick(at:)` calls,
/// so a capture replayed gives the same ticks and events every time.
public struct Engine: Sendable {
  public private(set) var configuration: EngineConfiguration
  public private(set) var analyzer: StreamAnalyzer
  var alerts: AlertEvaluator
  var peers: [String: PeerRecord] = [:]
  var baselines: [StreamBaseline] = []
  var streamTrackers: [ConnectionTracker?] = []
  /// Probe sessions (see `record(probe:)`), and their indices by reflector: in an array, whose
  /// elements are changed in place, where a dictionary's modify accessor would put a value this
  /// large on the heap for every probe.
  var probeSessions = ContiguousArray<ProbeTracker>()
  var probeSessionIndex: [Endpoint: Int] = [:]
  var previousTick: CaptureTime?
  /// Capture interfaces whose link is down, since when.
  var linksDown: [UInt8: CaptureTime] = [:]
  /// Events that happened between ticks (a link going down): the next tick reports them with
  /// its own, so every consumer of ticks sees them.
  var pendingEvents: [EngineEvent] = []
  /// The replay reached the end of its input (see `finishReplay`).
  var inputEnded = false

  public init(configuration: EngineConfiguration = EngineConfiguration()) {
    self.configuration = configuration
    analyzer = StreamAnalyzer(configuration: Self.analyzerConfiguration(configuration))
    alerts = AlertEvaluator(rules: configuration.alertRules)
  }

  /// Applies new settings (a configuration reload) keeping every stream, peer and alert: the
  /// quality model, timers, local networks and alert rules take effect at the next tick.
  public mutating func reconfigure(_ newConfiguration: EngineConfiguration) {
    configuration = newConfiguration
    alerts.rules = newConfiguration.alertRules
    analyzer.configuration = Self.analyzerConfiguration(newConfiguration)
  }

  /// The analyser's part of the settings: its own, with the engine's local networks.
  static func analyzerConfiguration(_ configuration: EngineConfiguration)
    -> StreamAnalyzer.Configuration
  {
    var result = configuration.analyzer
    result.localNetworks = configuration.localNetworks
    return result
  }

  /// Feeds one captured frame (see `StreamAnalyzer.ingest`).
  @inline(__always)
  public mutating func ingest(
    frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType, at time: CaptureTime,
    interface: UInt8 = 0
  ) {
    analyzer.ingest(
      frame: frame, originalLength: originalLength, linkType: linkType, at: time,
      interface: interface)
  }

  /// The corrected time of a packet stamped `time` (see `CaptureClock`): a replay ticks on it
  /// and then feeds the packet with `ingest(frame:originalLength:linkType:atCorrected:)`.
  @inline(__always)
  public mutating func correctTime(_ time: CaptureTime) -> CaptureTime {
    analyzer.correctTime(time)
  }

  /// Feeds a frame whose time `correctTime` already gave.
  @inline(__always)
  public mutating func ingest(
    frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType,
    atCorrected time: CaptureTime
  ) {
    analyzer.ingest(
      frame: frame, originalLength: originalLength, linkType: linkType, atCorrected: time)
  }

  /// Nothing left to report: no peer and no stream (all forgotten after their silence). A
  /// replay skips the ticks of such a stretch instead of emitting them empty.
  public var isIdle: Bool {
    peers.isEmpty && analyzer.liveStreamCount == 0 && probeSessions.isEmpty
  }

  /// Ticks up to `time` were skipped while the engine was idle (a replay over a long silence):
  /// the next window starts there, not at the last tick before the silence.
  public mutating func skipTicks(through time: CaptureTime) {
    previousTick = time
  }

  /// Closes the window ending at wall-clock time `time` (the live agent): the same clock that
  /// stamps the packets, so a step of it shifts the tick like the packets (`CaptureClock`).
  public mutating func tick(atWallClock time: CaptureTime) -> TickResult {
    tick(at: analyzer.clock.correctTick(time))
  }

  /// A wall-clock time on the corrected clock, for events the capture threads time
  /// themselves (a link going down).
  public func correctedWallClock(_ time: CaptureTime) -> CaptureTime {
    time.advanced(byNanoseconds: analyzer.clock.offsetNanoseconds)
  }

  /// A capture interface lost or regained its link. Peers reached only through interfaces
  /// that are down are down at once (level 6, state disconnected) from the next tick, without
  /// waiting for the 12 s of silence; the events for them come back now.
  public mutating func linkChanged(interface: UInt8, up: Bool, at time: CaptureTime)
    -> [EngineEvent]
  {
    if up {
      guard linksDown.removeValue(forKey: interface) != nil else { return [] }
    } else {
      guard linksDown[interface] == nil else { return [] }
      linksDown[interface] = time
    }
    var affected: Set<String> = []
    for index in 0..<analyzer.streamCount {
      let counters = analyzer.counters(ofStream: index)
      guard counters.interface == interface, counters.isConfirmed,
        let (_, peer) = peerSide(counters.key)
      else { continue }
      affected.insert(configuration.peerName(peer))
    }
    let events = affected.sorted().map {
      EngineEvent(time: time, kind: up ? .linkUp : .linkDown, peer: $0)
    }
    pendingEvents += events
    return events
  }

  /// The alerts firing now.
  public var firingAlerts: [Alert] {
    alerts.firing.values.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
  }

  public struct TickResult: Sendable {
    public var snapshot: Snapshot
    public var events: [EngineEvent]

    public init(snapshot: Snapshot, events: [EngineEvent]) {
      self.snapshot = snapshot
      self.events = events
    }
  }

  /// Closes the window that ends at `now`.
  public mutating func tick(at now: CaptureTime) -> TickResult {
    let interval =
      previousTick.map { max(0, now.seconds(since: $0)) } ?? configuration.tickIntervalSeconds
    previousTick = now
    var windows: [StreamWindow] = []
    var byPeer: [String: PeerWindow] = [:]
    for index in 0..<analyzer.streamCount {
      let counters = analyzer.counters(ofStream: index)
      guard counters.isConfirmed,
        let (window, peer) = streamWindow(index, counters, now: now, interval: interval)
      else { continue }
      windows.append(window)
      byPeer[configuration.peerName(peer), default: PeerWindow()].add(
        window, counters: counters, rtcp: analyzer.rtcpCadenceByAddress[peer],
        stun: analyzer.stunRoundTripByAddress[peer], end: analyzer.sessionEndByAddress[peer])
    }
    // Streams silent for the timeout and the grace after it are forgotten, and peers with no
    // stream or probe left with them: memory stays bounded however long the agent runs.
    let forgetAfter =
      configuration.timers.timeoutAfterSeconds + configuration.forgetAfterTimeoutSeconds
    let probed = takeProbeWindows(forgetBefore: now.advanced(bySeconds: -forgetAfter))
    var events = pendingEvents
    pendingEvents.removeAll()
    var snapshots: [PeerSnapshot] = []
    for name in Set(byPeer.keys).union(probed.keys).sorted() {
      let (snapshot, peerEvents) = updatePeer(
        name, byPeer[name] ?? PeerWindow(), probe: probed[name], now: now)
      snapshots.append(snapshot)
      events += peerEvents
    }
    analyzer.startWindows()
    analyzer.forget(silentSince: now.advanced(bySeconds: -forgetAfter))
    for name in peers.keys where byPeer[name] == nil && probed[name] == nil {
      peers[name] = nil
      for alert in alerts.resolveAll(peer: name, at: now) {
        events.append(
          EngineEvent(time: now, kind: .alertResolved, peer: name, previousState: nil, alert: alert)
        )
      }
    }
    let active = snapshots.filter {
      [.connected, .held, .interrupted, .disconnected].contains($0.state)
    }
    let snapshot = Snapshot(
      time: now, intervalSeconds: interval,
      hostRx: active.reduce(QualityLevel.unknown) { $0.worse($1.rx.level) },
      hostTx: active.reduce(QualityLevel.unknown) { $0.worse($1.tx.level) },
      peers: snapshots, streams: windows)
    events.sort { ($0.time, $0.peer) < ($1.time, $1.peer) }
    return TickResult(snapshot: snapshot, events: events)
  }

  /// A stream's direction and the remote address it is exchanged with; nil for a stream
  /// between two local or two remote addresses.
  func peerSide(_ key: StreamKey) -> (StreamDirection, IPAddress)? {
    let direction = StreamDirection(
      source: key.sourceAddress, destination: key.destinationAddress,
      localNetworks: configuration.localNetworks)
    switch direction {
    case .rx: return (direction, key.sourceAddress)
    case .tx: return (direction, key.destinationAddress)
    case .local, .transit: return nil
    }
  }

  /// The window of one stream since the previous tick, and the peer it belongs to (nil for a
  /// stream between two local or two remote addresses).
  private mutating func streamWindow(
    _ index: Int, _ counters: StreamCounters, now: CaptureTime, interval: Double
  ) -> (StreamWindow, IPAddress)? {
    guard let (direction, peer) = peerSide(counters.key) else { return nil }
    while baselines.count <= index {
      baselines.append(StreamBaseline())
      streamTrackers.append(nil)
    }
    if baselines[index].firstArrival != counters.firstArrival {
      // A new stream in a forgotten one's slot: start from zero.
      baselines[index] = StreamBaseline(firstArrival: counters.firstArrival)
      streamTrackers[index] = nil
    }
    let before = baselines[index]
    baselines[index] = StreamBaseline(
      firstArrival: counters.firstArrival, expected: counters.expected,
      counted: counters.countedPackets,
      silenceLoss: counters.silenceLoss, packets: counters.packets,
      duplicates: counters.duplicates, late: counters.late, payloadBytes: counters.payloadBytes)
    // Packets lost across an outage are the outage's, reported as a connection state: they
    // neither count as expected nor as lost in the window after it.
    let outage = counters.silenceLoss - before.silenceLoss
    let expected = counters.expected - before.expected - outage
    // A late packet may fill a gap counted in an earlier window: the signed change is pooled
    // (so it refunds that loss), the window shows no less than 0.
    let lostChange = expected - (counters.countedPackets - before.counted)
    let lost = max(0, lostChange)
    var tracker = streamTrackers[index] ?? ConnectionTracker(firstSeen: counters.lastArrival)
    let activity = max(
      counters.lastArrival, counters.feedback.lastSenderRTCPTime ?? counters.lastArrival)
    // The sender's own RTCP keeps a stream alive and on hold while its media is silent.
    var control: ConnectionTracker.Control?
    if let lastRTCP = counters.feedback.lastSenderRTCPTime,
      let cadence = analyzer.rtcpCadenceByAddress[counters.key.sourceAddress]
    {
      control = ConnectionTracker.Control(
        lastMedia: counters.lastArrival, lastRTCP: lastRTCP,
        allowanceSeconds: cadence.allowanceSeconds)
    }
    _ = tracker.advance(
      to: now, lastActivity: activity, resumedAt: counters.resumedAt,
      endedAt: counters.feedback.goodbyeTime, control: control, timers: configuration.timers)
    streamTrackers[index] = tracker
    let roundTrip = counters.feedback.roundTrip.lastSeconds.map { $0 * 1000 }
    let window = StreamWindow(
      key: counters.key, direction: direction, role: counters.role,
      packets: counters.packets - before.packets,
      expected: expected, lost: lost, lostChange: lostChange,
      lossRatio: expected > 0 ? Double(lost) / Double(expected) : 0,
      duplicates: counters.duplicates - before.duplicates, late: counters.late - before.late,
      bitsPerSecond: interval > 0
        ? Double(counters.payloadBytes - before.payloadBytes) * 8 / interval : 0,
      jitterMilliseconds: counters.windowMaxJitterSeconds.map { $0 * 1000 },
      roundTripMilliseconds: roundTrip, packetsTotal: counters.packets,
      lostTotal: max(0, counters.expected - counters.countedPackets), state: tracker.state)
    return (window, peer)
  }
}

/// A peer's streams in one window, gathered before scoring.
struct PeerWindow {
  var rxAudio = (packets: Int64(0), expected: Int64(0), lost: Int64(0))
  var rxVideo = (packets: Int64(0), expected: Int64(0), lost: Int64(0))
  var rxJitterMilliseconds: Double?
  var rxBitsPerSecond = 0.0
  var rxLastArrival: CaptureTime?
  var rxResumedAt: CaptureTime?
  /// The latest RTCP from any of the peer's addresses, and the longest silence its cadence
  /// allows (the largest over those addresses).
  var lastRTCP: CaptureTime?
  var rtcpAllowanceSeconds: Double?
  /// Capture interfaces the peer's streams were seen on.
  var interfaces: Set<UInt8> = []
  var rxGoodbye: CaptureTime?
  var rxStreamsEnded = 0
  var rxStreams = 0
  var txPackets: Int64 = 0
  var txLastArrival: CaptureTime?
  var txPacketsTotal: Int64 = 0
  var rxPacketsTotal: Int64 = 0
  var rxLostTotal: Int64 = 0
  var txVideo = false
  /// Repair packets (window, cumulative), kept out of the media figures.
  var rxRetransmitted: (window: Int64, total: Int64) = (0, 0)
  var txRetransmitted: (window: Int64, total: Int64) = (0, 0)
  var rxFEC: (window: Int64, total: Int64) = (0, 0)
  /// Receiver reports about our streams to the peer: the latest of each.
  var txFeedback:
    [(time: CaptureTime, since: CaptureTime?, fractionLost: Double, jitterMilliseconds: Double?)] =
      []
  var roundTrip: (time: CaptureTime, milliseconds: Double)?
  /// The newest ICE check round trip to the peer's addresses (for calls whose RTCP is SRTCP).
  var stunRoundTrip: (time: CaptureTime, milliseconds: Double)?
  /// The latest clear end-of-call signal (DTLS alert, TURN release) on the peer's addresses.
  var sessionEnd: SessionEnd?
  var streams = 0

  mutating func add(
    _ window: StreamWindow, counters: StreamCounters, rtcp: RTCPCadence?,
    stun: RoundTripStatistics?, end: SessionEnd?
  ) {
    streams += 1
    if let seconds = stun?.lastSeconds, let time = stun?.lastTime,
      stunRoundTrip.map({ time > $0.time }) ?? true
    {
      stunRoundTrip = (time, seconds * 1000)
    }
    if let end, sessionEnd.map({ end.time > $0.time }) ?? true { sessionEnd = end }
    if let rtcp {
      lastRTCP = max(lastRTCP ?? rtcp.last, rtcp.last)
      rtcpAllowanceSeconds = max(
        rtcpAllowanceSeconds ?? rtcp.allowanceSeconds, rtcp.allowanceSeconds)
    }
    interfaces.insert(counters.interface)
    if counters.role != .media {
      addRepair(window, counters: counters)
      return
    }
    switch window.direction {
    case .rx:
      rxStreams += 1
      if counters.isVideo {
        rxVideo.packets += window.packets
        rxVideo.expected += window.expected
        rxVideo.lost += window.lostChange
      } else {
        rxAudio.packets += window.packets
        rxAudio.expected += window.expected
        rxAudio.lost += window.lostChange
      }
      if let jitter = window.jitterMilliseconds, window.packets > 0 {
        rxJitterMilliseconds = max(rxJitterMilliseconds ?? 0, jitter)
      }
      rxBitsPerSecond += window.bitsPerSecond
      rxLastArrival = max(rxLastArrival ?? counters.lastArrival, counters.lastArrival)
      if window.packets > 0 {
        rxResumedAt = min(rxResumedAt ?? counters.resumedAt, counters.resumedAt)
      }
      rxPacketsTotal += window.packetsTotal
      rxLostTotal += window.lostTotal
      if let bye = counters.feedback.goodbyeTime, bye >= counters.lastArrival {
        rxStreamsEnded += 1
        rxGoodbye = max(rxGoodbye ?? bye, bye)
      }
    default:
      // The peer's round trip: its receiver reports about our streams, timed against our own
      // sender reports (RFC 3550 section 6.4.1), cross the network both ways from where we
      // capture. The samples of the peer's streams (our reports about them) measure the loop
      // from the capture point through this host and back, close to 0 on a host capture:
      // they stay the stream's `rtt_ms`, never the peer's.
      if let sample = counters.feedback.roundTrip.lastSeconds,
        let time = counters.feedback.roundTrip.lastTime,
        roundTrip.map({ time > $0.time }) ?? true
      {
        roundTrip = (time, sample * 1000)
      }
      txPackets += window.packets
      txPacketsTotal += window.packetsTotal
      txLastArrival = max(txLastArrival ?? counters.lastArrival, counters.lastArrival)
      txVideo = txVideo || counters.isVideo
      if let time = counters.feedback.lastReportTime,
        let fraction = counters.feedback.lastFractionLost
      {
        let jitter = zip(counters.feedback.lastJitterTimestampUnits, counters.clockRateHz).map {
          Double($0.0) / Double($0.1) * 1000
        }
        txFeedback.append((time, counters.feedback.previousReportTime, fraction, jitter))
      }
    }
  }
}

extension PeerWindow {
  /// A repair stream: its packets count as repairs, its arrivals as the peer's activity; its
  /// jitter (the age of what it repairs) and loss stay out of the peer's figures.
  fileprivate mutating func addRepair(_ window: StreamWindow, counters: StreamCounters) {
    switch (window.direction, counters.role) {
    case (.rx, .fec):
      rxFEC.window += window.packets
      rxFEC.total += window.packetsTotal
    case (.rx, _):
      rxRetransmitted.window += window.packets
      rxRetransmitted.total += window.packetsTotal
    default:
      txRetransmitted.window += window.packets
      txRetransmitted.total += window.packetsTotal
    }
    if window.direction == .rx {
      rxLastArrival = max(rxLastArrival ?? counters.lastArrival, counters.lastArrival)
    } else {
      txLastArrival = max(txLastArrival ?? counters.lastArrival, counters.lastArrival)
    }
  }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
  guard let a, let b else { return nil }
  return (a, b)
}
