import NetQualityCore
import XCTest

@testable import NetQualityExport

/// The status page rendered from a synthetic model: names escaped, rows bounded whatever the
/// fleet, chart points where the samples put them.
final class StatusPageTests: XCTestCase {
  static let time = CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000)

  static func peer(_ name: String, rx: QualityLevel = .excellent, tx: QualityLevel = .good)
    -> PeerSnapshot
  {
    PeerSnapshot(
      peer: name, state: .connected, stateSince: time,
      rx: DirectionSnapshot(level: rx, rawLevel: rx),
      tx: DirectionSnapshot(level: tx, rawLevel: tx),
      roundTripMilliseconds: 42, rxPackets: 100, rxLost: 0, rxBitsPerSecond: 64_000,
      txPackets: 100, rxPacketsTotal: 100, rxLostTotal: 0, txPacketsTotal: 100,
      rxRetransmittedPackets: 0, txRetransmittedPackets: 0, rxFECPackets: 0,
      rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0, streams: 1)
  }

  static func model(rows: [StatusPage.Row], peerCount: Int) -> StatusPage.Model {
    var model = StatusPage.Model()
    model.version = "test"
    model.time = time
    model.hostRx = .poor
    model.hostTx = .excellent
    model.peerCount = peerCount
    model.rows = rows
    model.chartTo = time.secondsSinceEpoch
    model.chartFrom = model.chartTo - 3600
    model.chartSource = "memory"
    return model
  }

  /// The heading names the configured span (status_page.chart_seconds), and how much of it
  /// the data covers while that is less: a young agent's 5 minutes are not the span.
  func testChartHeadingNamesTheConfiguredSpanAndTheDataItHas() {
    var model = Self.model(rows: [], peerCount: 0)
    XCTAssertEqual(StatusPage.chartHeading(model), "Last 1 h")
    model.chartFrom = model.chartTo - 300
    XCTAssertEqual(StatusPage.chartHeading(model), "Last 1 h (data for 5 min)")
    model.chartSpanSeconds = 300
    XCTAssertEqual(StatusPage.chartHeading(model), "Last 5 min")
    model.chartSpanSeconds = 7200
    model.chartFrom = model.chartTo - 7200
    XCTAssertEqual(StatusPage.chartHeading(model), "Last 2 h")
  }

  func testPeerNamesAreEscapedEverywhere() {
    let name = #"<script>alert("x")</script>&'"#
    let html = StatusPage.render(
      Self.model(rows: [.init(peer: Self.peer(name), isGroup: true, chart: [])], peerCount: 1))
    XCTAssertFalse(html.contains("<script>"))
    XCTAssertTrue(
      html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</a>"), html)
    // In the history link the name is percent-encoded: nothing of it is markup.
    XCTAssertTrue(
      html.contains(
        "/api/v1/history?peer=%3Cscript%3Ealert%28%22x%22%29%3C%2Fscript%3E%26%27&amp;since=1h"))
    XCTAssertTrue(html.contains(#"<span class="group">group</span>"#))
    XCTAssertEqual(HTMLText.escape(#"a<b>"c"&'d'"#), "a&lt;b&gt;&quot;c&quot;&amp;&#39;d&#39;")
  }

  func testPageStaysSmallWithAHundredThousandPeers() {
    let rows = (0..<20).map { index in
      StatusPage.Row(
        peer: Self.peer(String(format: "10.0.%d.%d", index / 250, index % 250), rx: .veryBad),
        isGroup: false,
        chart: (0..<120).map { point in
          ChartPoint(
            time: Self.time.secondsSinceEpoch - 3600 + Double(point) * 30, rxLevel: .veryBad,
            txLevel: .good, rxLossRatio: 0.2, txLossRatio: 0.01, roundTripMilliseconds: 80)
        })
    }
    var model = Self.model(rows: rows, peerCount: 100_000)
    model.othersPoorOrWorse = 1_234
    let html = StatusPage.render(model)
    XCTAssertEqual(html.components(separatedBy: "<tr class=\"level-").count - 1, 20)
    XCTAssertTrue(html.contains("… and 99980 more peers (1234 at poor or worse)"))
    XCTAssertTrue(html.contains(#"href="/api/v1/peers?sort=worst&amp;offset=20&amp;limit=100""#))
    // 20 rows with full charts of 120 points: well under 200 KB whatever the fleet.
    XCTAssertLessThan(html.utf8.count, 200_000, "\(html.utf8.count) bytes")
    XCTAssertEqual(html.components(separatedBy: #"data-points="120""#).count - 1, 20)
  }

  func testChartPutsPointsWhereTheirFiguresSay() {
    let start = 1_000.0
    let points = [
      ChartPoint(
        time: start, rxLevel: .excellent, txLevel: .down, rxLossRatio: 0, txLossRatio: 0.10,
        roundTripMilliseconds: 100),
      ChartPoint(
        time: start + 30, rxLevel: .unknown, txLevel: .down, rxLossRatio: nil,
        txLossRatio: 0.05, roundTripMilliseconds: nil),
      ChartPoint(
        time: start + 60, rxLevel: .poor, txLevel: .excellent, rxLossRatio: 0.02,
        txLossRatio: 0, roundTripMilliseconds: 50),
    ]
    let svg = StatusChart.svg(points, from: start, to: start + 120)
    XCTAssertTrue(svg.hasPrefix("<svg"))
    XCTAssertTrue(svg.contains(#"data-points="3""#))
    func paths() -> [String] {
      svg.components(separatedBy: #"<path d=""#).dropFirst().map {
        String($0.prefix { $0 != "\"" })
      }
    }
    // Width 320 over 120 s: x = 0, 80, 160. Level band: excellent y 2, poor 10, down 22.
    // rx levels: a piece of one point (drawn as a tick), unknown breaks it, then poor.
    XCTAssertEqual(paths()[0], "M0.0 2.0L1.0 2.0M159.0 10.0L161.0 10.0")
    // tx levels: down, down, excellent in one piece.
    XCTAssertEqual(paths()[1], "M0.0 22.0L1.0 22.0L80.0 22.0L160.0 2.0")
    // Loss band (30..54), top 10 %: rx 0 % at 53, 2 % at 48.6; tx 10 % at 31, 5 % at 42.
    XCTAssertEqual(paths()[2], "M0.0 53.0L1.0 53.0M159.0 48.6L161.0 48.6")
    XCTAssertEqual(paths()[3], "M0.0 31.0L1.0 31.0L80.0 42.0L160.0 53.0")
    // RTT band (60..84), top 100 ms: 100 at 61, none, 50 at 72.
    XCTAssertEqual(paths()[4], "M0.0 61.0L1.0 61.0M159.0 72.0L161.0 72.0")
    XCTAssertTrue(svg.contains("loss ≤ 10.0 %"))
    XCTAssertTrue(svg.contains("RTT ≤ 100 ms"))
    XCTAssertTrue(svg.contains("rx worst poor, tx worst down, max loss 10.0 %, max RTT 100 ms"))
    XCTAssertTrue(StatusChart.svg([], from: 0, to: 60).contains(#"data-points="0""#))
  }

  func testBucketsSumTicksAsTheHistoryDoes() {
    var bucket = ChartBucket(number: 40)
    bucket.add(
      rxLevel: .unknown, txLevel: .good, rxLossRatio: nil, txLossRatio: 0.02,
      roundTripMilliseconds: 30)
    bucket.add(
      rxLevel: .poor, txLevel: .excellent, rxLossRatio: 0.04, txLossRatio: 0,
      roundTripMilliseconds: nil)
    let point = bucket.point(bucketSeconds: 30)
    XCTAssertEqual(point.time, 1_200)
    XCTAssertEqual(point.rxLevel, .poor)
    XCTAssertEqual(point.txLevel, .good)
    XCTAssertEqual(try XCTUnwrap(point.rxLossRatio), 0.04, accuracy: 1e-6)
    XCTAssertEqual(try XCTUnwrap(point.txLossRatio), 0.01, accuracy: 1e-6)
    XCTAssertEqual(point.roundTripMilliseconds, 30)
    XCTAssertEqual(MemoryLayout<ChartBucket>.stride, 32)
  }

  func testPageBeforeTheFirstTick() {
    var model = StatusPage.Model()
    model.version = "v"
    let html = StatusPage.render(model)
    XCTAssertTrue(html.contains("No tick yet"))
    XCTAssertTrue(html.contains(#"<a href="/metrics">"#))
  }

  /// Issue 26: an on-call reads which alerts fire (not just how many), what happened lately,
  /// how long each state has lasted, and what measured each peer.
  func testFiringAlertsLatestEventsAgesAndSources() {
    var model = Self.model(
      rows: [.init(peer: Self.peer("198.51.100.7"), isGroup: false, chart: [])], peerCount: 1)
    let start = Self.time.advanced(bySeconds: -192)
    model.alerts = [
      Alert(
        id: "a", rule: "peer_disconnected", severity: .critical, labels: ["peer": "<b>x</b>"],
        state: .firing, start: start, summary: "peer <b>x</b> disconnected")
    ]
    model.firingAlerts = 1
    model.events = [
      EngineEvent(
        time: Self.time.advanced(bySeconds: -45), kind: .recovered, peer: "198.51.100.7",
        previousState: .interrupted)
    ]
    let html = StatusPage.render(model)
    XCTAssertTrue(html.contains("<td>peer_disconnected</td><td>critical</td>"), html)
    XCTAssertTrue(html.contains(">3m12s</td><td>peer &lt;b&gt;x&lt;/b&gt; disconnected</td>"), html)
    XCTAssertTrue(html.contains("<h2>Latest events</h2>"))
    XCTAssertTrue(
      html.contains(
        ">45s</td><td class=\"peer\">198.51.100.7</td><td>recovered</td><td>from interrupted</td>"),
      html)
    XCTAssertTrue(html.contains("<th>Source</th>"))
    XCTAssertTrue(html.contains("title=\"since \(Self.time.rfc3339)\">0s</td>"), html)
    XCTAssertFalse(html.contains("<b>x</b>"), "escaped")
  }

  /// Issue 37: thousands of alerts firing (a TURN host's departed peers) list the newest
  /// twenty, newest first, and say how many more.
  func testNewestAlertsOfThousands() {
    // Starts in a scrambled order, two alerts per second: the newest are the largest starts.
    var generator = SystemRandomNumberGenerator()
    let alerts = (0..<5000).shuffled(using: &generator).map { index in
      Alert(
        id: "a\(index)", rule: "peer_timeout", severity: .critical, labels: ["peer": "p\(index)"],
        state: .firing, start: Self.time.advanced(bySeconds: Double(index / 2)), summary: "s")
    }
    let newest = StatusPage.newest(of: alerts)
    let expected = alerts.sorted { ($0.start, $0.id) > ($1.start, $1.id) }.prefix(
      StatusPage.listedAlerts)
    XCTAssertEqual(newest.map(\.id), expected.map(\.id))
    XCTAssertEqual(StatusPage.newest(of: Array(alerts.prefix(3))).count, 3)
    var model = Self.model(rows: [], peerCount: 0)
    model.alerts = newest
    model.firingAlerts = alerts.count
    let html = StatusPage.render(model)
    XCTAssertTrue(html.contains("… and 4980 more alerts firing"), html)
  }

  /// Issue 38: a relayed call's loss on each segment of its path, in the list of bad calls.
  func testABadRelayedCallSaysWhereItsPacketsWereLost() {
    let key = { (source: UInt32, destination: UInt32) in
      StreamKey(
        source: Endpoint(address: IPAddress(ipv4: source), port: 20000),
        destination: Endpoint(address: IPAddress(ipv4: destination), port: 30000), ssrc: 7)
    }
    var relayed = CallRecord(
      id: "c1", kind: .sip, peers: ["10.207.0.2"], start: Self.time.advanced(bySeconds: -30),
      end: Self.time.advanced(bySeconds: -2), endReason: .byeCaller)
    relayed.rx.worstLevel = .bad
    relayed.hops = [
      CallRecord.Hop(
        ssrc: 7, ingress: key(0x0ACF_0002, 0x0ACF_0001), egress: key(0x0ACF_0001, 0x0ACF_0003),
        upstreamLost: 27, relayLost: 22, downstreamLost: 36, addedJitterMilliseconds: 0.4)
    ]
    var direct = relayed
    direct.id = "c2"
    direct.hops = []
    var model = Self.model(rows: [], peerCount: 0)
    model.badCalls = [relayed, direct]
    let html = StatusPage.render(model)
    XCTAssertTrue(html.contains("<th>Lost where</th>"))
    XCTAssertTrue(html.contains("<td>up 27 · relay 22 · down 36</td>"), html)
    XCTAssertEqual(html.components(separatedBy: "<td>-</td></tr>").count - 1, 1, "the direct call")
  }
}
