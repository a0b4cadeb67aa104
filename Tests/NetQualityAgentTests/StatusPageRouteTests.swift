import Foundation
import Hummingbird
import HummingbirdTesting
import NetQualityCore
import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// The status page as the agent serves it: the rows chosen at a tick, the charts kept in
/// memory for them (bounded), and the page at `/`.
final class StatusPageRouteTests: XCTestCase {
  static func peer(_ name: String, level: QualityLevel) -> PeerSnapshot {
    var peer = StatusPageSupport.peer(name)
    peer.rx = DirectionSnapshot(level: level, rawLevel: level)
    return peer
  }

  func testRowsAreTheWorstThenTheGroupsWhateverTheFleet() {
    // 100,000 peers: every 1,000th poor, one very bad, the rest excellent; a group "sfu".
    var peers = (0..<100_000).map { index in
      Self.peer(
        String(format: "10.%d.%d.%d", index / 65_536, index / 256 % 256, index % 256),
        level: index % 1_000 == 0 ? .poor : .excellent)
    }
    peers[77] = Self.peer("10.0.0.77", level: .veryBad)
    peers.append(Self.peer("sfu", level: .excellent))
    let table = PeerTable(time: nil, peers: peers, sorted: [.worst])
    let rows = StatusPageRows(table, groups: ["sfu"], maxPeers: 20)
    XCTAssertEqual(rows.peers.count, 21)
    XCTAssertEqual(rows.peers.first?.peer, "10.0.0.77")
    XCTAssertEqual(rows.peers[1...19].map(\.rx.level), Array(repeating: .poor, count: 19))
    XCTAssertEqual(rows.peers.last?.peer, "sfu")
    XCTAssertEqual(rows.isGroup, Array(repeating: false, count: 20) + [true])
    // 100 poor + 1 very bad at poor or worse; 20 of them shown.
    XCTAssertEqual(rows.othersPoorOrWorse, 101 - 20)
  }

  func testChartsInMemoryAreBucketedAndBounded() {
    let charts = StatusCharts()
    let bucket = StatusCharts.bucketSeconds(chartSeconds: 3600, tickSeconds: 2)
    XCTAssertEqual(bucket, 30)
    XCTAssertEqual(StatusCharts.bucketSeconds(chartSeconds: 120, tickSeconds: 2), 2)
    let start = 1_767_225_600.0
    // Two hours of ticks for 3 peers: each keeps at most the hour's 121 buckets.
    for tick in 0..<3600 {
      let level: QualityLevel = tick % 15 == 0 ? .bad : .good
      charts.record(
        ["a", "b", "c"].map { Self.peer($0, level: level) }, at: start + Double(tick) * 2,
        bucketSeconds: bucket, chartSeconds: 3600, rows: 20)
    }
    let points = charts.points("a", from: start + 3600, to: start + 7200)
    XCTAssertEqual(points.count, 120)
    XCTAssertEqual(points.first?.time, start + 3600)
    // A bucket of 15 ticks holds one bad tick: the bucket is bad (the worst).
    XCTAssertEqual(Set(points.map(\.rxLevel)), [.bad])
    XCTAssertEqual(points.first?.roundTripMilliseconds, 42)
    // Buffers: at most 4 x the rows; the least recently shown go first.
    for index in 0..<50 {
      charts.record(
        [Self.peer("p\(index)", level: .good)], at: start + 7200 + Double(index) * 2,
        bucketSeconds: bucket, chartSeconds: 3600, rows: 5)
    }
    XCTAssertEqual(charts.bufferCount, StatusCharts.bufferLimit(rows: 5))
    XCTAssertTrue(charts.points("a", from: 0, to: .infinity).isEmpty)
    XCTAssertFalse(charts.points("p49", from: 0, to: .infinity).isEmpty)
  }

  /// An agent's state after one tick published to the API and the status page.
  static func publishedState() throws -> AgentState {
    let state = HTTPRoutesTests.tickedState()
    let tick = try XCTUnwrap(state.read(\.lastTick), "no tick")
    let publication = TickPublication(
      result: tick, alerts: [], capture: CaptureCounters(), trackedStreams: 1)
    PublishedStateSink(state: state).publish(publication)
    StatusPageSink(state: state).publish(publication)
    return state
  }

  func testPageAtTheRootShowsTheTicksPeersWithCharts() async throws {
    let state = try Self.publishedState()
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
        let html = String(buffer: response.body)
        XCTAssertTrue(html.contains(#"<meta http-equiv="refresh" content="2">"#))
        XCTAssertTrue(html.contains(">198.51.100.2</a>"), html)
        XCTAssertTrue(html.contains(#"data-points="1""#))
        XCTAssertTrue(html.contains("from memory"))
        for link in ["/metrics", "/api/v1/peers", "/api/v1/status", "/-/healthy"] {
          XCTAssertTrue(html.contains("href=\"\(link)\""), link)
        }
      }
    }
  }

  /// "Recent bad and failed calls": the calls /api/v1/calls keeps that failed or were bad,
  /// newest first; a good answered call is not listed; wire strings escaped.
  func testPageListsRecentBadAndFailedCallsNewestFirst() async throws {
    let state = try Self.publishedState()
    var bad = CallsAPITests.call("bad", status: 200, at: 104)
    bad.rx.worstLevel = .veryBad
    bad.rx.minMeanOpinionScore = 1.9
    var hostile = CallsAPITests.call("x", status: 503, at: 105)
    hostile.fromUser = "<script>\u{1b}[2J"
    state.update {
      $0.recentCalls = [
        CallsAPITests.call("good", status: 200, at: 100),
        CallsAPITests.call("busy", status: 486, at: 101), bad, hostile,
      ]
    }
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        let html = String(buffer: response.body)
        XCTAssertTrue(html.contains("<h2>Recent bad and failed calls</h2>"), html)
        let listed = ["call-x", "call-bad", "call-busy"].map { html.range(of: ">\($0)</a>") }
        XCTAssertTrue(listed.allSatisfy { $0 != nil }, html)
        let starts = listed.compactMap { $0?.lowerBound }
        XCTAssertEqual(starts, starts.sorted(), "newest first")
        XCTAssertFalse(html.contains(">call-good</a>"))
        XCTAssertTrue(html.contains(">1.90</td>"), "the bad call's lowest MOS")
        XCTAssertFalse(html.contains("<script>"))
        XCTAssertTrue(html.contains("&lt;script&gt;"))
        XCTAssertTrue(html.contains(#"href="/api/v1/calls?failed=true""#))
      }
    }
  }
}

/// A peer snapshot with a round trip of 42 ms, for the agent's status page tests.
enum StatusPageSupport {
  static func peer(_ name: String) -> PeerSnapshot {
    let time = CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000)
    return PeerSnapshot(
      peer: name, state: .connected, stateSince: time,
      rx: DirectionSnapshot(level: .excellent, rawLevel: .excellent),
      tx: DirectionSnapshot(level: .excellent, rawLevel: .excellent), roundTripMilliseconds: 42,
      rxPackets: 100, rxLost: 0, rxBitsPerSecond: 64_000, txPackets: 100, rxPacketsTotal: 100,
      rxLostTotal: 0, txPacketsTotal: 100, rxRetransmittedPackets: 0, txRetransmittedPackets: 0,
      rxFECPackets: 0, rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0,
      streams: 1)
  }
}
