/// The engine: packets in, and every tick a snapshot (per-stream windows, per-peer tx/rx levels,
/// connection states) and the events since the previous tick.
///
/// Its two halves run in turn: the `StreamAnalyzer` takes every packet (decode, streams), and at
/// each tick its counters are harvested (`StreamHarvest`) and handed to the `Scorer` (windows,
/// peers, states, alerts, probes). A replay (a capture file, the tests) drives this struct; the
/// live agent holds the two halves under separate locks so that capture never waits while a
/// tick is scored, and calls the same harvest and scoring code.
///
/// Pure: time comes only from the packets and the `tick(at:)` calls, so a capture replayed
/// gives the same ticks and events every time.
public struct Engine: Sendable {
  public private(set) var analyzer: StreamAnalyzer
  public private(set) var scorer: Scorer
  /// Reused by every tick.
  private var harvest = StreamHarvest()

  public var configuration: EngineConfiguration { scorer.configuration }
  /// See `Scorer.reusesRestingPeers`: tests compare every tick with and without it.
  var reusesRestingPeers: Bool {
    get { scorer.reusesRestingPeers }
    set { scorer.reusesRestingPeers = newValue }
  }

  public init(configuration: EngineConfiguration = EngineConfiguration()) {
    analyzer = StreamAnalyzer(configuration: Scorer.analyzerConfiguration(configuration))
    scorer = Scorer(configuration: configuration)
  }

  /// Applies new settings (a configuration reload) keeping every stream, peer and alert: the
  /// quality model, timers, local networks and alert rules take effect at the next tick.
  public mutating func reconfigure(_ newConfiguration: EngineConfiguration) {
    scorer.reconfigure(newConfiguration)
    analyzer.reconfigure(Scorer.analyzerConfiguration(newConfiguration))
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

  /// The time to feed a record whose timestamp is no time
  /// (`StreamAnalyzer.timeOfRecordWithBadTimestamp`).
  public mutating func timeOfRecordWithBadTimestamp(carried: CaptureTime) -> CaptureTime {
    analyzer.timeOfRecordWithBadTimestamp(carried: carried)
  }

  /// Nothing left to report: no peer and no stream (all forgotten after their silence). A
  /// replay skips the ticks of such a stretch instead of emitting them empty.
  public var isIdle: Bool { scorer.isIdle && analyzer.liveStreamCount == 0 }

  /// Ticks up to `time` were skipped while the engine was idle (see `Scorer.skipTicks`).
  public mutating func skipTicks(through time: CaptureTime) {
    scorer.skipTicks(through: time)
  }

  /// The kernel dropped packets of the capture of `interface`, noticed at `time` (see
  /// `StreamAnalyzer.noticeCaptureDrops`).
  public mutating func noticeCaptureDrops(interface: UInt8, at time: CaptureTime) {
    analyzer.noticeCaptureDrops(interface: interface, at: time)
  }

  /// A capture interface lost or regained its link (see `Scorer.linkChanged`).
  public mutating func linkChanged(interface: UInt8, up: Bool, at time: CaptureTime)
    -> [EngineEvent]
  {
    scorer.linkChanged(interface: interface, up: up, at: time)
  }

  /// Feeds one settled probe (see `Scorer.record(probe:)`).
  public mutating func record(probe sample: ProbeSample) {
    scorer.record(probe: sample)
  }

  /// The alerts firing now.
  public var firingAlerts: [Alert] { scorer.firingAlerts }

  /// The replay reached the end of its input (see `finishReplay`).
  mutating func markInputEnded() { scorer.markInputEnded() }

  public struct TickResult: Sendable {
    public var snapshot: Snapshot
    public var events: [EngineEvent]

    public init(snapshot: Snapshot, events: [EngineEvent]) {
      self.snapshot = snapshot
      self.events = events
    }
  }

  /// Closes the window that ends at `now`: harvests the analyzer, then scores the harvest.
  public mutating func tick(at now: CaptureTime) -> TickResult {
    analyzer.harvest(into: &harvest, forgetSilentSince: scorer.forgetCutoff(at: now))
    return scorer.tick(at: now, harvest: &harvest)
  }
}
