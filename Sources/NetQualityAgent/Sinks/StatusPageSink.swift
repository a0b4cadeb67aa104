/// The status page's rows, chosen once per tick from the HTTP sink's table (so it runs after
/// it), and their figures added to the charts kept in memory.
struct StatusPageSink: TickSink {
  let state: AgentState
  var name: String { "status page" }

  func publish(_ tick: TickPublication) {
    let (table, configuration) = state.read { ($0.peerTable, $0.status.configuration) }
    guard let table else { return }
    let settings = configuration.statusPage
    let groups = Set(configuration.peerGroups.map(\.name))
    let rows = StatusPageRows(table, groups: groups, maxPeers: settings.maxPeers)
    state.statusCharts.record(
      rows.peers, at: tick.result.snapshot.time.secondsSinceEpoch,
      bucketSeconds: StatusCharts.bucketSeconds(
        chartSeconds: settings.chartSeconds,
        tickSeconds: configuration.engine.tickIntervalSeconds),
      chartSeconds: settings.chartSeconds,
      rows: settings.maxPeers + min(groups.count, settings.maxPeers))
    state.update { $0.statusRows = rows }
  }
}
