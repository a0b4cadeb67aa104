import NetQualityExport

/// The text dashboard, appended to its file (or stdout) every tick, with as many peer rows as
/// the configuration's `dashboard.max_peers`.
struct DashboardSink: TickSink {
  let state: AgentState
  var name: String { "dashboard" }

  func publish(_ tick: TickPublication) {
    guard let output = state.dashboard.withLock({ $0 }) else { return }
    let maxPeers = state.read { $0.status.configuration.dashboard.maxPeers }
    output.write(
      DashboardFrame.render(tick.result, firingAlerts: tick.alerts.count, maxPeers: maxPeers))
  }
}
