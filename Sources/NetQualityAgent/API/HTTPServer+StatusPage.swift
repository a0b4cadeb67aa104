import Foundation
import Hummingbird
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityStore

extension HTTPServer {
  /// The status page at `/` (`StatusPage`): the rows chosen at the last tick, each with its
  /// chart from the history when it is on (read once per tick and set of peers, off the event
  /// loop, from a read-only connection), else — or when the history cannot be read — from the
  /// charts kept in memory. Its link to the metrics is to `metricsPath` (`--web.telemetry-path`).
  static func statusPage(
    _ state: AgentState, metricsPath: String = TelemetryPath.defaultPath
  ) async -> Response {
    var model = StatusPage.Model()
    model.version = BuildInfo.version
    model.metricsPath = metricsPath
    let (rows, table, tick, alerts, events, calls, configuration) = state.read {
      (
        $0.statusRows, $0.peerTable, $0.lastTick, $0.alerts, $0.recentEvents, $0.recentCalls,
        $0.status.configuration
      )
    }
    model.refreshSeconds = configuration.engine.tickIntervalSeconds
    model.firingAlerts = alerts.count
    model.alerts = StatusPage.newest(of: alerts)
    model.events = events.reversed()
    model.badCalls = calls.reversed().filter { $0.isFailed || $0.isBad }
    model.activeCalls = tick?.snapshot.calls.activeTotal ?? 0
    guard let table, let time = table.time, let tick else {
      return html(StatusPage.render(model))
    }
    model.time = time
    model.hostRx = tick.snapshot.hostRx
    model.hostTx = tick.snapshot.hostTx
    model.rxLevels = table.levels.rx
    model.txLevels = table.levels.tx
    model.peerCount = table.peers.count
    model.othersPoorOrWorse = rows.othersPoorOrWorse
    let settings = configuration.statusPage
    let bucketSeconds = StatusCharts.bucketSeconds(
      chartSeconds: settings.chartSeconds, tickSeconds: configuration.engine.tickIntervalSeconds)
    // Whole buckets: the span ends with the bucket of the last tick.
    model.chartTo = ((time.secondsSinceEpoch / bucketSeconds).rounded(.down) + 1) * bucketSeconds
    model.chartFrom = model.chartTo - settings.chartSeconds
    model.chartSpanSeconds = settings.chartSeconds
    let names = rows.peers.map(\.peer)
    var fromHistory: [String: [ChartPoint]]?
    model.chartSource = "memory (the agent keeps the shown peers' charts while they are shown)"
    if state.history != nil, let readers = state.historyReaders {
      let query = HistoryChartQuery(
        peers: names, from: model.chartFrom, to: model.chartTo, bucketSeconds: bucketSeconds)
      let key = "\(time.nanosecondsSinceEpoch) \(bucketSeconds) \(names.joined(separator: "\n"))"
      fromHistory = await state.statusCharts.historyPoints(key: key) {
        try? await readers.read { db in try query.points(db, point: ChartPoint.init) }
      }
      model.chartSource =
        fromHistory == nil
        ? "memory (the history could not be read)" : "the history"
    }
    model.rows = rows.peers.indices.map { index in
      let peer = rows.peers[index]
      var points = fromHistory?[peer.peer] ?? []
      if points.isEmpty {
        points = state.statusCharts.points(peer.peer, from: model.chartFrom, to: model.chartTo)
      }
      return StatusPage.Row(peer: peer, isGroup: rows.isGroup[index], chart: points)
    }
    // The span fitted to the data there is: an agent up for 7 minutes charts 7 minutes, not
    // a sliver of an hour (at least `minimumChartBuckets` buckets).
    if let first = model.rows.compactMap({ $0.chart.first?.time }).min() {
      model.chartFrom = min(
        model.chartTo - bucketSeconds * StatusPage.minimumChartBuckets,
        max(model.chartFrom, first))
    }
    return html(StatusPage.render(model))
  }
}
