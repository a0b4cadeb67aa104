import NetQualityCore
import NetQualityExport

/// Publishes each tick to the state the HTTP port answers from (`/metrics`, the API, the status
/// page): the metrics rendered once, the peers' table, the tick, its alerts, events and calls.
/// Requests read the last publication and never wait for a tick. The table's sort orders, the
/// peers' worst-first order among them, are sorted here, once per tick and outside both locks,
/// so that no request to `/api/v1/peers` sorts.
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
    var retired = RetiredTick()
    state.update { published in
      published.tickMetrics = metrics
      published.seriesPeers = tickMetrics.seriesPeerNames
      // The tick before is let go after the lock, elsewhere (`RetiredTick`).
      swap(&retired.result, &published.lastTick)
      swap(&retired.table, &published.peerTable)
      published.lastTick = tick.result
      published.peerTable = table
      published.alerts = tick.alerts
      // The last of the tick's events join the list (a tick with thousands keeps its last).
      published.recentEvents.append(
        contentsOf: tick.result.events.suffix(AgentState.recentEventLimit))
      published.recentEvents.removeFirst(
        max(0, published.recentEvents.count - AgentState.recentEventLimit))
      // Calls nothing ever answered (scans, floods into silence) have a list of their own:
      // however many come, they never push the answered and rejected calls out (issue 37).
      let ended = tick.result.snapshot.calls.ended
      if !ended.isEmpty {
        for call in ended {
          if call.noResponse {
            published.recentSilentCalls.append(call)
          } else {
            published.recentAnsweredCalls.append(call)
          }
        }
        published.recentAnsweredCalls.removeFirst(
          max(0, published.recentAnsweredCalls.count - AgentState.recentCallLimit))
        published.recentSilentCalls.removeFirst(
          max(0, published.recentSilentCalls.count - AgentState.recentSilentCallLimit))
        published.recentCalls = Self.merged(
          published.recentAnsweredCalls, published.recentSilentCalls)
      }
      published.capture = tick.capture
      published.trackedStreams = tick.trackedStreams
      published.streamSlots = tick.streamSlots
      published.tickTiming = tick.timing
    }
    retired.release()
  }

  /// Two lists of calls in the order of their ends, as one.
  static func merged(_ first: [CallRecord], _ second: [CallRecord]) -> [CallRecord] {
    var result: [CallRecord] = []
    result.reserveCapacity(first.count + second.count)
    var (i, j) = (0, 0)
    while i < first.count || j < second.count {
      if j == second.count
        || (i < first.count && (first[i].end, first[i].id) <= (second[j].end, second[j].id))
      {
        result.append(first[i])
        i += 1
      } else {
        result.append(second[j])
        j += 1
      }
    }
    return result
  }
}
