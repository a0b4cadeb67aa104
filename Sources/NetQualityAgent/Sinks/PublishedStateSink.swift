import Logging
import NetQualityCore
import NetQualityExport
import NetQualityStore

/// peers' worst-first order is sorted here, once per tick and outside both locks, so that no
/// request to `/api/v1/peers` sorts.
struct PublishedStateSink: TickSink {
  let state: AgentState
  var name: String { "http" }

  func publish(_ tick: TickPublication) {
    // Rendered here, once per tick and outside the lock, instead of at every scrape; the
    // metrics' worst peers come from the table's worst-first order (one sort of the fleet).
    let table = PeerTable(tick.result.snapshot, sorted: [.worst])
    let (settings, incumbents) = state.read { ($0.metrics, $0.seriesPeers) }
    let tickMetrics = TickMetrics(
      tick.result.snapshot, alerts: tick.alerts, settings: settings,
      worstOrder: table.order(.worst), incumbents: incumbents,
      levelCounters: { names in state.scorer.withLock { $0.levelCounters(of: names) } })
    let metrics = tickMetrics.render()
    state.update { published in
      published.tickMetrics = metrics
      published.seriesPeers = tickMetrics.seriesPeerNames
      published.lastTick = tick.result
      published.peerTable = table
      published.alerts = tick.alerts
      // The last of the tick's events join the list (a tick with thousands keeps its last).
      published.recentEvents.append(
        contentsOf: tick.result.events.suffix(AgentState.recentEventLimit))
      published.recentEvents.removeFirst(
        max(0, published.recentEvents.count - AgentState.recentEventLimit))
      published.recentCalls.append(
        contentsOf: tick.result.snapshot.calls.ended.suffix(AgentState.recentCallLimit))
      published.recentCalls.removeFirst(
        max(0, published.recentCalls.count - AgentState.recentCallLimit))
      published.capture = tick.capture
      published.trackedStreams = tick.trackedStreams
      published.streamSlots = tick.streamSlots
      published.tickTiming = tick.timing
    }
  }
}
