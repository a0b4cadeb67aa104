import Logging
import NetQualityCore
import NetQualityExport
import NetQualityStore

/// The HTTP server's view: `/metrics` and the JSON API render the last publication. The
/// peers' worst-first order is sorted here, once per tick and outside both locks, so that no
/// request to `/api/v1/peers` sorts.
struct PublishedStateSink: TickSink {
  let state: AgentState
  var name: String { "http" }

  func publish(_ tick: TickPublication) {
    // Rendered here, once per tick and outside the lock, instead of at every scrape; the
    // metrics' worst peers come from the table's worst-first order (one sort of the fleet).
    let table = PeerTable(tick.result.snapshot, sorted: [.worst])
    let metrics = HTTPServer.tickMetrics(
      tick.result.snapshot, alerts: tick.alerts, settings: state.read(\.metrics),
      worstOrder: table.order(.worst),
      levelCounters: { names in state.scorer.withLock { $0.levelCounters(of: names) } })
    state.update { published in
      published.tickMetrics = metrics
      published.lastTick = tick.result
      published.peerTable = table
      published.alerts = tick.alerts
      published.capture = tick.capture
      published.trackedStreams = tick.trackedStreams
      published.streamSlots = tick.streamSlots
      published.tickTiming = tick.timing
    }
    // The API's readers resume now, not after the dashboard and the other sinks.
    state.gate.open()
  }
}

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

/// The log at any fleet size: one line per event (state changes at info, alerts at warning
/// with their summary) for the first `peerEventsPerTick` events of a tick, then one line per
/// kind of event left (alerts per rule) with its count and the first peers' names. An alert
/// not about a peer (the agent's own) always gets its line.
struct LogSink: TickSink {
  /// Event lines per tick before the rest is summarised. 20: the peers of one call or one
  /// room changing at once each still get a line with their metadata, while a link or an SFU
  /// taking thousands of peers down at once costs a line per kind instead of about six per
  /// peer (issue 12: 325,507 lines, 49 MB, in 10 minutes of churn at 10,000 peers).
  static let defaultPeerEventsPerTick = 20
  /// Peer names in a summary line.
  static let namesPerSummary = 10

  let logger: Logger
  var peerEventsPerTick = LogSink.defaultPeerEventsPerTick
  var name: String { "log" }

  /// Events of one kind (and one alert rule) beyond the bound.
  private struct Left {
    var kind: EngineEvent.Kind
    var rule: String?
    var peers: [String] = []
  }

  func publish(_ tick: TickPublication) {
    var logged = 0
    var left: [String: Left] = [:]
    for event in tick.result.events {
      let aboutPeer = event.alert.map { $0.labels["peer"] != nil } ?? true
      guard aboutPeer else {
        log(event)
        continue
      }
      if logged < peerEventsPerTick {
        log(event)
        logged += 1
        continue
      }
      let rule = event.alert?.rule
      let key = "\(event.kind.rawValue) \(rule ?? "")"
      left[key, default: Left(kind: event.kind, rule: rule)].peers.append(event.peer)
    }
    let summaries = left.sorted {
      $0.value.peers.count != $1.value.peers.count
        ? $0.value.peers.count > $1.value.peers.count : $0.key < $1.key
    }
    for (_, group) in summaries { summarise(group) }
  }

  private func log(_ event: EngineEvent) {
    var metadata: Logger.Metadata = ["peer": "\(event.peer)", "event": "\(event.kind.rawValue)"]
    if let reason = event.endReason { metadata["reason"] = "\(reason.rawValue)" }
    if let previous = event.previousState { metadata["from"] = "\(previous.rawValue)" }
    if let alert = event.alert {
      metadata["alert"] = "\(alert.rule)"
      logger.warning("\(alert.summary)", metadata: metadata)
    } else {
      logger.info("peer \(event.peer) \(event.kind.rawValue)", metadata: metadata)
    }
  }

  /// "412 more peers disconnected in this tick: p1, p2, …, p10, … (first 10 names)".
  private func summarise(_ group: Left) {
    var names = group.peers.prefix(Self.namesPerSummary).joined(separator: ", ")
    if group.peers.count > Self.namesPerSummary {
      names += ", … (first \(Self.namesPerSummary) names)"
    }
    var metadata: Logger.Metadata = [
      "event": "\(group.kind.rawValue)", "peers": "\(group.peers.count)",
    ]
    if let rule = group.rule {
      metadata["alert"] = "\(rule)"
      let state = group.kind == .alertFiring ? "firing" : "resolved"
      logger.warning(
        "\(group.peers.count) more \(rule) alerts \(state) in this tick: \(names)",
        metadata: metadata)
    } else {
      let what = group.kind.rawValue.split(separator: "_").joined(separator: " ")
      logger.info(
        "\(group.peers.count) more peers \(what) in this tick: \(names)", metadata: metadata)
    }
  }
}

/// The SQLite history: the tick is queued for the recorder's thread, never written here.
struct HistorySink: TickSink {
  let recorder: HistoryRecorder
  let state: AgentState
  var name: String { "history" }

  func publish(_ tick: TickPublication) {
    let interfaces = state.read { $0.interfaces }
    let dropped = interfaces.values.reduce(Int64(0)) { $0 + Int64($1.droppedPackets) }
    let decodeErrors = tick.capture.decodeErrors.values.reduce(0, +)
    recorder.record(
      HistoryTick(
        tick.result,
        capture: HistoryTick.CaptureHealth(
          frames: tick.capture.frames, dropped: dropped, decodeErrors: decodeErrors)))
  }
}

/// Alertmanager: the alerts firing after the tick and its events (for resolution times) left
/// in the notifier's mailbox, posted by the notifier's thread.
struct AlertmanagerSink: TickSink {
  let notifier: AlertmanagerNotifier
  var name: String { "alertmanager" }

  func publish(_ tick: TickPublication) {
    notifier.publish(
      firing: tick.alerts, events: tick.result.events, at: tick.result.snapshot.time)
  }
}
