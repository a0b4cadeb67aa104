import Foundation
import Logging
import NetQualityCore
import NetQualityExport
import NetQualityStore
import ServiceLifecycle
import Synchronization

/// Closes a window every tick interval on wall-clock boundaries (capture timestamps are wall
/// clock too) and hands the result to each sink: the HTTP state, the dashboard, the log and
/// the history. The interval is read before every wait, so a reload changes it at the next
/// tick.
public final class TickService: Service, Sendable {
  let state: AgentState
  let sinks: [any TickSink]
  /// How long the previous tick took to publish (published with the next one: a publication
  /// cannot carry its own duration).
  private let lastPublishSeconds = Atomic<Double>(0)

  init(state: AgentState, sinks: [any TickSink]) {
    self.state = state
    self.sinks = sinks
  }

  public func run() async throws {
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
      let interval = CaptureTime.nanoseconds(
        state.scorer.withLock { $0.configuration.tickIntervalSeconds })
      let now = Self.wallClock()
      let next = (now / interval + 1) * interval
      do {
        try await cancelWhenGracefulShutdown {
          try await Task.sleep(for: .nanoseconds(next - now))
        }
      } catch {
        break
      }
      tick(at: CaptureTime(nanosecondsSinceEpoch: next))
    }
  }

  /// Closes a window: harvests the analyzer's counters under the capture lock (a copy: the only
  /// moment the captures wait), then scores the harvest and publishes the result while capture
  /// goes on; the API's readers of peers and streams wait from the harvest to the publication
  /// (`AgentState.withdrawTick`).
  func tick(at time: CaptureTime) {
    let clock = ContinuousClock()
    let started = clock.now
    let cutoff = state.scorer.withLock { $0.forgetCutoff(at: time) }
    // One tick's peers and streams in memory, not two: the last tick's go before this one's
    // harvest is taken and scored (the readers of the API wait for the new ones; `/metrics`
    // keeps its rendering).
    state.withdrawTick()
    defer { state.gate.open() }
    // A new harvest each tick, drained as it is scored: kept from tick to tick it would hold a
    // copy of every stream (16 MB at 100,000 streams) for nothing. Its streams are in chunks,
    // so it grows without copying.
    var harvested = StreamHarvest()
    let now = state.capture.withLock { analyzer in
      let now = analyzer.correctTick(time)
      analyzer.harvest(into: &harvested, forgetSilentSince: cutoff)
      return now
    }
    let harvestEnded = clock.now
    var publication = state.scorer.withLock { scorer in
      TickPublication(
        result: scorer.tick(at: now, harvest: &harvested), alerts: scorer.firingAlerts,
        capture: harvested.capture, trackedStreams: harvested.liveStreams,
        streamSlots: harvested.streamSlots)
    }
    let scoreEnded = clock.now
    publication.alerts += agentAlerts()
    publication.timing = TickTiming(
      harvestSeconds: Self.seconds(harvestEnded - started),
      scoreSeconds: Self.seconds(scoreEnded - harvestEnded),
      publishSeconds: lastPublishSeconds.load(ordering: .relaxed))
    for sink in sinks { sink.publish(publication) }
    lastPublishSeconds.store(Self.seconds(clock.now - scoreEnded), ordering: .relaxed)
    if harvested.forgotten > 0 || !harvested.remap.isEmpty {
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
  func agentAlerts() -> [Alert] {
    guard let recorder = state.history, let since = recorder.counters.faultSince,
      let fault = recorder.counters.fault
    else { return [] }
    let start = CaptureTime(nanosecondsSinceEpoch: CaptureTime.nanoseconds(since))
    return [
      Alert(
        id: "storage_failing", rule: "storage_failing", severity: .critical,
        labels: ["kind": fault.kind.rawValue], state: .firing, start: start, end: nil,
        summary: "history \(recorder.settings.path) cannot be written: \(fault.message)")
    ]
  }

  static func wallClock() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}
