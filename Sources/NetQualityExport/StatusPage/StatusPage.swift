import NetQualityCore

/// The agent's page at `/`, for an engineer's browser: the host's rx and tx levels, how many
/// peers are at each level, a row per shown peer (the worst first, then the configured peer
/// groups) with a chart of its recent levels, loss and round trip, a line counting the others
/// with a link to the API, and the agent's links. Server-rendered HTML with inline SVG and CSS,
/// no script: it works offline, refreshes itself every tick (`<meta http-equiv="refresh">`)
/// and stays the same size however many peers there are. Every name is escaped.
public enum StatusPage {
  public struct Row: Sendable {
    public var peer: PeerSnapshot
    /// A configured peer group shown whatever its level.
    public var isGroup: Bool
    public var chart: [ChartPoint]

    public init(peer: PeerSnapshot, isGroup: Bool, chart: [ChartPoint]) {
      self.peer = peer
      self.isGroup = isGroup
      self.chart = chart
    }
  }

  public struct Model: Sendable {
    public var version = ""
    /// Where the metrics are served (`--web.telemetry-path`), for the page's link.
    public var metricsPath = "/metrics"
    /// The last tick (nil: none yet).
    public var time: CaptureTime?
    public var hostRx = QualityLevel.unknown
    public var hostTx = QualityLevel.unknown
    /// Peers at each level (indexed by `QualityLevel.rawValue`), every peer counted.
    public var rxLevels = [Int](repeating: 0, count: QualityLevel.allCases.count)
    public var txLevels = [Int](repeating: 0, count: QualityLevel.allCases.count)
    public var peerCount = 0
    public var firingAlerts = 0
    /// The newest `listedAlerts` alerts firing, newest first (`newest(of:)`); `firingAlerts`
    /// counts them all.
    public var alerts: [Alert] = []
    /// The latest events, newest first.
    public var events: [EngineEvent] = []
    /// The latest ended calls that failed or were bad, newest first (the first `listedCalls`
    /// are listed), and the calls open now.
    public var badCalls: [CallRecord] = []
    public var activeCalls = 0
    public var rows: [Row] = []
    /// Peers not shown, and how many of them are at poor or worse.
    public var othersPoorOrWorse = 0
    public var refreshSeconds = 2.0
    /// The charts' span: [chartFrom, chartTo), Unix seconds.
    public var chartFrom = 0.0
    public var chartTo = 0.0
    /// The span the charts are configured for (`status_page.chart_seconds`); the drawn span
    /// [chartFrom, chartTo) is shorter while there is less data.
    public var chartSpanSeconds = 3600.0
    /// Where the charts come from: "the history" or "memory (...)", never a file's path (the
    /// page is for anyone who may see it).
    public var chartSource = ""

    public init() {}

    public var others: Int { max(0, peerCount - rows.count) }
    /// A video column (frames a second, freezes: docs/media.md) when a row has incoming video.
    public var showsVideo: Bool { rows.contains { ($0.peer.media?.rx.videoStreams ?? 0) > 0 } }
  }

  /// Alerts listed at most; the rest are counted, with a link to the API.
  public static let listedAlerts = 20
  /// Bad and failed calls listed at most.
  public static let listedCalls = 10
  /// A chart spans at least this many buckets, however little data there is.
  public static let minimumChartBuckets = 10.0

  public static func render(_ model: Model) -> String {
    var html = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8">
      <meta http-equiv="refresh" content="\(max(1, Int(model.refreshSeconds.rounded(.up))))">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <link rel="icon" href="data:,">
      <title>netquality: host rx \(model.hostRx.name), tx \(model.hostTx.name)</title>
      <style>\(style)</style></head><body>
      <header><h1>netquality</h1><span class="version">\(HTMLText.escape(model.version))</span>
      <nav><a href="\(HTMLText.escape(model.metricsPath))">\(HTMLText.escape(model.metricsPath))</a> <a href="/api/v1/peers">/api/v1/peers</a> \
      <a href="/api/v1/streams">/api/v1/streams</a> <a href="/api/v1/alerts">/api/v1/alerts</a> \
      <a href="/api/v1/status">/api/v1/status</a> \
      <a href="/api/v1/history?since=1h">/api/v1/history</a> <a href="/-/healthy">/-/healthy</a> \
      <a href="/-/ready">/-/ready</a></nav></header>

      """
    guard let time = model.time else {
      html += "<p class=\"waiting\">No tick yet: the first comes within a tick interval.</p>\n"
      return html + "</body></html>\n"
    }
    html += """
      <section class="host"><div>Host rx \(badge(model.hostRx))</div>\
      <div>tx \(badge(model.hostTx))</div>\
      <div>\(model.peerCount) peer\(model.peerCount == 1 ? "" : "s")</div>\
      <div>\(model.firingAlerts) alert\(model.firingAlerts == 1 ? "" : "s") firing</div>\
      <div class="time">tick \(time.rfc3339)</div></section>
      \(levelTable(model))
      """
    html += alertList(model, at: time)
    if !model.rows.isEmpty {
      html += """
        <table class="peers"><thead><tr><th>Peer</th><th>RX</th><th>TX</th><th>MOS</th>\
        <th>RX loss</th><th>RX jitter</th><th>TX loss</th><th>RTT</th>\
        \(model.showsVideo ? "<th>RX video</th>" : "")<th>Source</th>\
        <th>State</th><th>For</th><th>\(chartHeading(model))</th></tr></thead><tbody>

        """
      for row in model.rows { html += self.row(row, model: model) }
      html += "</tbody></table>\n"
    }
    if model.others > 0 {
      html += """
        <p class="more">… and \(model.others) more peer\(model.others == 1 ? "" : "s") \
        (\(model.othersPoorOrWorse) at poor or worse): \
        <a href="/api/v1/peers?sort=worst&amp;offset=\(model.rows.count)&amp;limit=100">the next \
        100 in the API</a>, or <a href="/api/v1/peers?min_level=poor">all at poor or worse</a>.</p>

        """
    }
    html += callList(model, at: time)
    html += eventList(model, at: time)
    html += """
      <footer>Charts: <span class="rx">rx</span> and <span class="tx">tx</span> levels (excellent \
      at the top, down at the bottom), loss, and <span class="rtt">RTT</span>; from \
      \(HTMLText.escape(model.chartSource)). Refreshes every \
      \(DecimalText.fixed(model.refreshSeconds, places: 0)) s.</footer>
      </body></html>

      """
    return html
  }

  static func row(_ row: Row, model: Model) -> String {
    let peer = row.peer
    let name = HTMLText.escape(peer.peer)
    let link = "/api/v1/history?peer=\(HTMLText.queryValue(peer.peer))&amp;since=1h"
    return """
      <tr class="level-\(peer.worstLevel.name)"><td class="peer"><a href="\(link)">\(name)</a>\
      \(row.isGroup ? " <span class=\"group\">group</span>" : "")</td>\
      <td>\(badge(peer.rx.level))</td><td>\(badge(peer.tx.level))</td>\
      <td class="n">\(peer.meanOpinionScore.map { DecimalText.fixed($0, places: 2) } ?? "-")</td>\
      <td class="n">\(percent(peer.rx.inputs?.lossRatio))</td>\
      <td class="n">\(milliseconds(peer.rx.inputs?.jitterMilliseconds))</td>\
      <td class="n">\(percent(peer.tx.inputs?.lossRatio))</td>\
      <td class="n">\(milliseconds(peer.roundTripMilliseconds))</td>\
      \(model.showsVideo ? "<td class=\"n\">\(HTMLText.escape(DashboardFrame.videoCell(peer)))</td>" : "")\
      <td>\(HTMLText.escape(DashboardFrame.source(peer)))</td>\
      <td>\(HTMLText.escape(peer.state.rawValue))</td>\
      <td class="since" title="since \(peer.stateSince.rfc3339)">\(age(peer.stateSince, model.time))</td>\
      <td>\(StatusChart.svg(row.chart, from: model.chartFrom, to: model.chartTo))</td></tr>

      """
  }

  /// "3m12s" from `since` to the tick.
  static func age(_ since: CaptureTime, _ time: CaptureTime?) -> String {
    DashboardFrame.age(time.map { $0.seconds(since: since) } ?? 0)
  }

  /// The newest `listedAlerts` of `alerts`, newest first, chosen in one pass: a host whose
  /// thousands of departed peers each have an alert firing sorts twenty, not all of them, per
  /// request.
  public static func newest(of alerts: [Alert]) -> [Alert] {
    // Positions, not alerts, are kept and compared: an alert's copy retains its strings and
    // labels, and most alerts are rejected on their start alone.
    func isNewer(_ a: Int, _ b: Int) -> Bool {
      alerts[a].start != alerts[b].start
        ? alerts[a].start > alerts[b].start : alerts[a].id > alerts[b].id
    }
    var newest: [Int] = []
    newest.reserveCapacity(listedAlerts + 1)
    for index in alerts.indices {
      if newest.count == listedAlerts, let oldest = newest.last, !isNewer(index, oldest) {
        continue
      }
      let position = newest.firstIndex { isNewer(index, $0) } ?? newest.endIndex
      newest.insert(index, at: position)
      if newest.count > listedAlerts { newest.removeLast() }
    }
    return newest.map { alerts[$0] }
  }

  /// The alerts firing, newest first: what pages someone now.
  static func alertList(_ model: Model, at time: CaptureTime) -> String {
    guard !model.alerts.isEmpty else { return "" }
    var html = """
      <table class="alerts"><thead><tr><th>Alert</th><th>Severity</th><th>Peer</th>\
      <th>For</th><th>Summary</th></tr></thead><tbody>

      """
    for alert in model.alerts.prefix(listedAlerts) {
      html += """
        <tr class="severity-\(HTMLText.escape(alert.severity.rawValue))">\
        <td>\(HTMLText.escape(alert.rule))</td><td>\(HTMLText.escape(alert.severity.rawValue))</td>\
        <td class="peer">\(HTMLText.escape(alert.labels["peer"] ?? "-"))</td>\
        <td class="since" title="since \(alert.start.rfc3339)">\(age(alert.start, time))</td>\
        <td>\(HTMLText.escape(alert.summary))</td></tr>

        """
    }
    html += "</tbody></table>\n"
    if model.firingAlerts > model.alerts.count {
      html += """
        <p class="more">… and \(model.firingAlerts - model.alerts.count) more alerts firing: \
        <a href="/api/v1/alerts">all in the API</a>.</p>

        """
    }
    return html
  }

  /// The latest calls that failed (SIP, never answered) or were bad (bad or worse in either
  /// direction at some tick), newest first: the calls someone will complain about.
  static func callList(_ model: Model, at time: CaptureTime) -> String {
    guard !model.badCalls.isEmpty else { return "" }
    var html = """
      <h2>Recent bad and failed calls</h2><table class="calls"><thead><tr><th>Ended</th>\
      <th>Kind</th><th>Call-ID</th><th>From</th><th>To</th><th>Peer</th><th>Status</th>\
      <th>End</th><th>Duration</th><th>Worst</th><th>MOS</th><th>Lost where</th></tr></thead>\
      <tbody>

      """
    for call in model.badCalls.prefix(listedCalls) {
      let link = "/api/v1/calls?call_id=\(HTMLText.queryValue(call.callID ?? ""))"
      let callID =
        call.callID.map { "<a href=\"\(link)\">\(HTMLText.escape($0))</a>" } ?? "-"
      html += """
        <tr class="level-\(call.worstLevel.name)">\
        <td class="since" title="\(call.end.rfc3339)">\(age(call.end, time))</td>\
        <td>\(call.kind.rawValue)</td><td class="peer">\(callID)</td>\
        <td>\(HTMLText.escape(call.fromUser ?? "-"))</td>\
        <td>\(HTMLText.escape(call.toUser ?? "-"))</td>\
        <td class="peer">\(HTMLText.escape(call.peers.first ?? "-"))</td>\
        <td class="n">\(call.finalStatus.map(String.init) ?? "-")</td>\
        <td>\(call.endReason.rawValue)</td>\
        <td class="n">\(DashboardFrame.age(call.durationSeconds))</td>\
        <td>\(badge(call.worstLevel))</td>\
        <td class="n">\(call.minMeanOpinionScore.map { DecimalText.fixed($0, places: 2) } ?? "-")</td>\
        <td>\(HTMLText.escape(lostWhere(call)))</td>\
        </tr>

        """
    }
    html += "</tbody></table>\n"
    html += """
      <p class="more">\(model.activeCalls) call\(model.activeCalls == 1 ? "" : "s") open now; \
      <a href="/api/v1/calls?failed=true">failed calls</a> and \
      <a href="/api/v1/calls">every recent call</a> in the API.</p>

      """
    return html
  }

  /// Where a relayed call's packets were lost (`CallRecord.Hop`, summed over its hops):
  /// "up 27 · relay 22 · down 36"; "-" for a call whose streams did not pass through this host.
  static func lostWhere(_ call: CallRecord) -> String {
    guard let lost = call.hopLoss else { return "-" }
    let downstream = lost.downstreamReported ? "\(lost.downstream)" : "?"
    return "up \(lost.upstream) · relay \(lost.relay) · down \(downstream)"
  }

  /// The latest events, newest first, with their age.
  static func eventList(_ model: Model, at time: CaptureTime) -> String {
    guard !model.events.isEmpty else { return "" }
    var html = """
      <h2>Latest events</h2><table class="events"><thead><tr><th>Ago</th><th>Peer</th>\
      <th>Event</th><th>Detail</th></tr></thead><tbody>

      """
    for event in model.events {
      var detail = event.alert?.summary ?? ""
      if let previous = event.previousState { detail = "from \(previous.rawValue)" }
      if let reason = event.endReason { detail = reason.rawValue }
      html += """
        <tr><td class="since" title="\(event.time.rfc3339)">\(age(event.time, time))</td>\
        <td class="peer">\(HTMLText.escape(event.peer))</td>\
        <td>\(HTMLText.escape(event.kind.rawValue))</td><td>\(HTMLText.escape(detail))</td></tr>

        """
    }
    return html + "</tbody></table>\n"
  }

  static func levelTable(_ model: Model) -> String {
    let levels = QualityLevel.allCases
    let head = levels.map { "<th>\(badge($0))</th>" }.joined()
    func counts(_ values: [Int]) -> String {
      levels.map {
        "<td class=\"n\">\(values.indices.contains($0.rawValue) ? values[$0.rawValue] : 0)</td>"
      }
      .joined()
    }
    return """
      <table class="levels"><thead><tr><th>peers at</th>\(head)</tr></thead><tbody>\
      <tr><th>rx</th>\(counts(model.rxLevels))</tr><tr><th>tx</th>\(counts(model.txLevels))</tr>\
      </tbody></table>

      """
  }

  /// "Last 1 h" for the configured span; while the data covers less of it, how much it covers
  /// ("Last 1 h (data for 7 min)"), so a young agent's chart is not read as the configured span.
  static func chartHeading(_ model: Model) -> String {
    let heading = "Last \(spanText(seconds: model.chartSpanSeconds))"
    let drawnSeconds = model.chartTo - model.chartFrom
    guard drawnSeconds < model.chartSpanSeconds else { return heading }
    return heading + " (data for \(spanText(seconds: drawnSeconds)))"
  }

  static func spanText(seconds: Double) -> String {
    let minutes = (seconds / 60).rounded()
    return minutes >= 60 && minutes.truncatingRemainder(dividingBy: 60) == 0
      ? "\(Int(minutes / 60)) h" : "\(DecimalText.fixed(max(1, minutes), places: 0)) min"
  }

  static func badge(_ level: QualityLevel) -> String {
    "<span class=\"badge l\(level.rawValue)\">\(level.name.replacingOccurrences(of: "_", with: " "))</span>"
  }

  static func percent(_ ratio: Double?) -> String {
    ratio.map { DecimalText.fixed($0 * 100, places: 1) + " %" } ?? "-"
  }

  static func milliseconds(_ value: Double?) -> String {
    DurationText.milliseconds(value)
  }

  /// Level colours from ColorBrewer's RdYlGn scale (colorbrewer2.org), unknown grey, down
  /// the darkest red.
  static let style = """
    body{font-family:system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}\
    header{display:flex;align-items:baseline;gap:1em;flex-wrap:wrap}h1{font-size:1.4em;margin:0}\
    .version{color:#666}nav a{margin-right:.6em}\
    .host{display:flex;gap:1.5em;align-items:center;margin:1em 0;font-size:1.1em}\
    .time{color:#666;font-size:.85em}table{border-collapse:collapse;margin:.5em 0}\
    th,td{padding:3px 7px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:middle}\
    td.n{text-align:right;font-variant-numeric:tabular-nums}.since{color:#666;font-size:.8em}\
    .peer a{color:#222;text-decoration:none;font-family:ui-monospace,monospace}\
    .group{font-size:.75em;background:#eee;border-radius:3px;padding:0 4px}\
    .badge{display:inline-block;min-width:5.5em;text-align:center;border-radius:3px;\
    padding:1px 4px;font-size:.85em}.l0{background:#ddd;color:#333}.l1{background:#1a9850;color:#fff}\
    .l2{background:#91cf60;color:#222}.l3{background:#fee08b;color:#222}\
    .l4{background:#fc8d59;color:#222}.l5{background:#d73027;color:#fff}\
    .l6{background:#67001f;color:#fff}.rx{color:#1f78b4;font-weight:bold}\
    .tx{color:#ff7f00;font-weight:bold}.rtt{color:#6a3d9a;font-weight:bold}\
    .more,footer{color:#444;margin:1em 0}footer{font-size:.85em;color:#666}svg.chart{display:block}\
    h2{font-size:1.1em;margin:1.2em 0 .3em}.severity-critical td:first-child{color:#a50026;\
    font-weight:bold}.severity-warning td:first-child{color:#d73027}
    """
}
