import Foundation
import Logging
import NetQualityCapture
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore
import ServiceLifecycle
import Synchronization

/// Closes a window every tick interval on wall-clock boundaries (capture timestamps are wall
/// clock too) and hands the result to each sink: the HTTP state, the dashboard, the log and
/// the history. The interval is read before every wait, so a reload changes it at the next
/// tick.
///
/// The ticker runs on a thread of its own, never on the concurrency pool: requests that fill
/// the pool (twenty slow history queries on a two-core host, issue 31) must not stop the
/// scoring, the states, the alerts and the history. A tick that wakes late (a stopped or
/// starved process) closes the latest boundary on the grid at or before the time it woke,
/// counts the boundaries it passed (`netquality_ticks_skipped_total`), and first lets the
/// captures read what the kernel buffered meanwhile.
public final class TickService: Service, Sendable {
  let state: AgentState
  let sinks: [any TickSink]
  /// The captures' progress, which a late tick waits for (nil: no captures, as in tests).
  let captures: CaptureProgress?
  /// How long the previous tick took to publish (published with the next one: a publication
  /// cannot carry its own duration).
  private let lastPublishSeconds = Atomic<Double>(0)
  private let threads = ServiceThreads()
  private let alarm = WallClockAlarm()
  /// Boundaries passed without a tick, since the start.
  let skippedTicks = Atomic<Int64>(0)
  /// The ticks so far: their completion after the boundary and their phases' seconds (the
  /// figures of `TickTiming` that add up; the ticker alone writes them).
  private let totals = Mutex(TickTiming())

  /// A tick that starts later than this after its boundary waits for the captures to catch up
  /// first: an on-time tick starts within a millisecond or two; a quarter of a second late
  /// means the process or the thread was held up.
  static let lateNanoseconds: Int64 = 250_000_000
  /// How long a late tick waits for the captures at most: a capture thread polls every
  /// `CaptureService.pollMilliseconds` (200 ms), and reading a full ring takes milliseconds.
  static let catchUpNanoseconds: Int64 = 1_000_000_000
  /// How long an on-time tick waits for its window's cut at most: a capture thread's poll ends
  /// just after each boundary and the ring's block timeout after it
  /// (`CaptureService.pollTimeoutMilliseconds`), so a quiet capture has said it read
  /// everything stamped before the boundary a few milliseconds after that; a busy one cuts at
  /// its first packet after the boundary. The bound keeps a stuck capture from delaying the
  /// tick further (its packets then go to the next window): 400 ms past the block timeout
  /// leaves a capture thread on a busy two-core host room to be scheduled.
  static let cutWaitNanoseconds: Int64 =
    Int64(LiveCapture.blockTimeoutMilliseconds) * 1_000_000 + 400_000_000

  init(state: AgentState, sinks: [any TickSink], captures: CaptureProgress? = nil) {
    self.state = state
    self.sinks = sinks
    self.captures = captures
  }

  public func run() async throws {
    threads.whenStopping { [alarm] in alarm.wake() }
    await threads.run([("ticker", { self.tickLoop() })])
  }

  private func tickLoop() {
    while !threads.isStopping {
      let interval = CaptureTime.nanoseconds(
        state.scorer.withLock { $0.configuration.tickIntervalSeconds })
      let now = WallClock.now().nanosecondsSinceEpoch
      let next = (now / interval + 1) * interval
      armCut(at: next)
      switch alarm.sleep(untilWallClock: next) {
      case .woken: return
      case .clockSteppedBack: continue
      case .due: break
      }
      let woke = WallClock.now().nanosecondsSinceEpoch
      let (boundary, skipped) = Self.boundary(scheduled: next, reading: woke, interval: interval)
      if skipped > 0 { skippedTicks.add(skipped, ordering: .relaxed) }
      let waitStarted = ContinuousClock.now
      if Self.isLate(scheduled: next, woke: woke) {
        // What the captures buffered while the agent was held up, read (or a window cut by
        // it): a cut left from before the stop says nothing of that.
        waitForCaptures(
          until: woke, deadline: woke + Self.catchUpNanoseconds,
          cutsBefore: state.capture.withLock(\.cutsMade))
      } else {
        // The window is cut by its packets (`StreamAnalyzer+Cut`): wait for the first packet
        // stamped after the boundary, or for the captures to have read everything before it.
        waitForCaptures(until: boundary, deadline: woke + Self.cutWaitNanoseconds)
      }
      tick(
        at: CaptureTime(nanosecondsSinceEpoch: boundary),
        lateSeconds: Double(woke - boundary) * 1e-9, intervalNanoseconds: interval,
        started: waitStarted)
    }
  }

  /// Arms the window cut at the boundary the loop sleeps until, unless it is armed there
  /// already or a packet has cut it: each tick arms the next one, so this arms the first tick
  /// after the start (which had nothing to arm it: its window took the packets fed while it
  /// waited for the captures) and the first after a reload changed the interval.
  private func armCut(at boundary: Int64) {
    let time = CaptureTime(nanosecondsSinceEpoch: boundary)
    let cutoff = state.scorer.withLock { $0.forgetCutoff(at: time) }
    state.capture.withLock { analyzer in
      let corrected = analyzer.correctedWallClock(time)
      guard !analyzer.hasMadeCut, analyzer.armedCutBoundary != corrected else { return }
      analyzer.armCut(.init(boundary: corrected, forgetSilentSince: cutoff))
    }
  }

  /// Whether a tick scheduled at `scheduled` woke late enough at `woke` that the captures may
  /// not have read what the kernel buffered meanwhile. Late against its schedule, not against
  /// the boundary it closes: a process continued just after a later boundary wakes near that
  /// boundary, and the tick then read none of the stop's backlog (a CI run saw a peer
  /// "interrupted" and "recovered" after a 10 s SIGSTOP, its packets still in the ring).
  static func isLate(scheduled: Int64, woke: Int64) -> Bool {
    woke - scheduled > lateNanoseconds
  }

  /// The boundary a tick scheduled at `scheduled` closes when it wakes at `reading`: the
  /// scheduled one when on time, else the latest on the grid at or before the reading, so that
  /// ticks stay on the grid and near the wall clock; and how many boundaries were passed.
  static func boundary(scheduled: Int64, reading: Int64, interval: Int64) -> (
    boundary: Int64, skipped: Int64
  ) {
    guard interval > 0, reading - scheduled >= interval else { return (scheduled, 0) }
    let latest = reading / interval * interval
    return (latest, (latest - scheduled) / interval)
  }

  /// Waits, until `deadline` at most, until every capture has read what was stamped before
  /// `wallClock`, or a packet has cut the window (with `cutsBefore`: a cut made since then).
  private func waitForCaptures(until wallClock: Int64, deadline: Int64, cutsBefore: Int? = nil) {
    guard let captures else { return }
    func cut() -> Bool {
      state.capture.withLock { analyzer in
        cutsBefore.map { analyzer.cutsMade > $0 } ?? analyzer.hasMadeCut
      }
    }
    while !captures.hasDrained(until: wallClock) && !threads.isStopping && !cut() {
      let now = WallClock.now().nanosecondsSinceEpoch
      guard now < deadline else { return }
      _ = alarm.sleep(untilWallClock: min(deadline, now + 5_000_000))
    }
  }

  /// Closes a window: harvests the analyzer's counters under the capture lock (a copy: the only
  /// moment the captures wait), then scores the harvest and publishes the result while capture
  /// goes on; requests read the previous tick's publication meanwhile, never waiting.
  ///
  /// `reading` is the wall clock as the captures are held, read there when nil (a test passes
  /// its own): only it, never the boundary, can tell a step of the host's clock
  /// (`CaptureClock.correctTick`).
  ///
  /// The window is the one its packets cut (`StreamAnalyzer+Cut`): the harvest the first
  /// packet stamped at or after the boundary made, or, with no such packet yet, one made now.
  /// With `intervalNanoseconds`, the next window's cut is armed. A cut made at an earlier
  /// boundary (the tick woke late) is scored first, as its own tick, and its events published
  /// with this one's.
  func tick(
    at time: CaptureTime, reading: CaptureTime? = nil, lateSeconds: Double = 0,
    intervalNanoseconds: Int64? = nil, started: ContinuousClock.Instant? = nil
  ) {
    let clock = ContinuousClock()
    // The harvest phase runs from the wake (`started`): the wait for the packets' cut, whose
    // harvest a capture thread made, and the taking of it.
    let started = started ?? clock.now
    let (cutoff, nextCutoff) = state.scorer.withLock { scorer in
      (
        scorer.forgetCutoff(at: time),
        scorer.forgetCutoff(at: time.advanced(byNanoseconds: intervalNanoseconds ?? 0))
      )
    }
    // Drained as it is scored: its streams' chunks go as they are read (a harvest kept whole
    // from tick to tick would hold a copy of every stream, 16 MB at 100,000 streams, for
    // nothing). Its other lists are handed back to the analyser once scored (`recycle`).
    var harvested = StreamHarvest()
    var earlier: StreamAnalyzer.MadeCut?
    let now = state.capture.withLock { analyzer in
      let now = analyzer.correctTick(time, reading: reading ?? WallClock.now())
      var made = analyzer.takeMadeCut()
      // Blind spans the captures found after the cut (a stop of the agent: the drops noticed,
      // the gap read, after the packet that cut the window): its silence is theirs too.
      if made != nil { made?.harvest.blindSpans += analyzer.takeCaptureBlindSpans() }
      if let made, made.boundary >= now {
        harvested = made.harvest
      } else {
        earlier = made
        harvested = analyzer.takeSpareHarvest()
        analyzer.harvest(into: &harvested, forgetSilentSince: cutoff)
      }
      if let intervalNanoseconds {
        analyzer.armCut(
          .init(
            boundary: now.advanced(byNanoseconds: intervalNanoseconds),
            forgetSilentSince: nextCutoff))
      }
      return now
    }
    let harvestEnded = clock.now
    var publication = state.scorer.withLock { scorer in
      var earlierEvents: [EngineEvent] = []
      if var cut = earlier {
        earlierEvents = scorer.tick(at: cut.boundary, harvest: &cut.harvest).events
      }
      var result = scorer.tick(at: now, harvest: &harvested)
      result.events = earlierEvents + result.events
      return TickPublication(
        result: result, alerts: scorer.firingAlerts,
        capture: harvested.capture, trackedStreams: harvested.liveStreams,
        streamSlots: harvested.streamSlots)
    }
    let scoreEnded = clock.now
    // Appended only when there are some: an append, even of nothing, copies the engine's list
    // it shares (thousands of alerts for a host's departed peers, 2 % of the ticker's time
    // under churn, perf, issue 37).
    let ownAlerts = agentAlerts()
    if !ownAlerts.isEmpty { publication.alerts += ownAlerts }
    var timing = totals.withLock { $0 }
    timing.harvestSeconds = Self.seconds(harvestEnded - started)
    timing.scoreSeconds = Self.seconds(scoreEnded - harvestEnded)
    timing.publishSeconds = lastPublishSeconds.load(ordering: .relaxed)
    timing.lateSeconds = lateSeconds
    timing.skippedTicks = skippedTicks.load(ordering: .relaxed)
    publication.timing = timing
    for sink in sinks { sink.publish(publication) }
    let published = clock.now
    let publishSeconds = Self.seconds(published - scoreEnded)
    lastPublishSeconds.store(publishSeconds, ordering: .relaxed)
    totals.withLock { totals in
      totals.completion.add(lateSeconds + Self.seconds(published - started))
      totals.harvestSecondsTotal += timing.harvestSeconds
      totals.scoreSecondsTotal += timing.scoreSeconds
      totals.publishSecondsTotal += publishSeconds
    }
    let forgotten = harvested.forgotten > 0 || !harvested.remap.isEmpty
    // Handed back for the next cut to fill: its lists' pages are faulted in already.
    state.capture.withLock { $0.recycle(&harvested) }
    if forgotten {
      // Streams and peers were forgotten (and the arrays perhaps compacted): once the previous
      // tick's publication, which still showed them, is replaced, hand the freed pages back to
      // the system, which glibc's arenas would otherwise keep for reuse.
      MemoryTrim.releaseFreePages()
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }

  /// The agent's own alerts, beside the engine's per-peer ones: the history failing to write.
  /// One incident is one alert: its `kind` label is the fault it began with, while the summary
  /// says what fails now (a label that changed mid-incident would be a second alert to
  /// Alertmanager, the first lingering until it expired).
  func agentAlerts() -> [Alert] {
    let counters = state.history?.counters
    guard let recorder = state.history, let counters, let since = counters.faultSince,
      let fault = counters.fault
    else { return [] }
    let start = CaptureTime(nanosecondsSinceEpoch: CaptureTime.nanoseconds(since))
    let kind = counters.faultFirstKind ?? fault.kind
    let now = kind == fault.kind ? "" : " (now \(fault.kind.rawValue); began as \(kind.rawValue))"
    return [
      Alert(
        id: "storage_failing", rule: "storage_failing", severity: .critical,
        labels: ["kind": kind.rawValue], state: .firing, start: start, end: nil,
        summary: "history \(recorder.settings.path) cannot be written: \(fault.message)\(now)")
    ]
  }
}
