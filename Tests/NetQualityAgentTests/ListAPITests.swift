import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NetQualityCore
import NetQualitySynth
import XCTest

@testable import NetQualityAgent

/// `/api/v1/peers` and `/api/v1/streams` in pages: over 250 synthetic peers whose levels,
/// MOS, loss and states follow from their number, so every count below can be worked out by
/// hand (and was, in the comments).
final class ListAPITests: XCTestCase {
  static let peerCount = 250
  static let states: [ConnectionState] = [.connected, .interrupted, .disconnected]

  /// Peer `i` is `10.0.(i / 100).(i % 100)`, rx level `i % 7`, tx level `(i / 7) % 7`, in
  /// state `states[i % 3]`; rx MOS `4.4 - 0.1 * (i % 13)` when its rx level is 1 to 5, rx
  /// loss `((37 i) % 250) / 1000` (every peer a different loss).
  static func peer(_ index: Int) -> PeerSnapshot {
    let rxLevel = QualityLevel(rawValue: index % 7) ?? .unknown
    let rx = DirectionSnapshot(
      level: rxLevel, rawLevel: rxLevel,
      inputs: .init(
        packets: 100, lossRatio: Double((37 * index) % 250) / 1000,
        jitterMilliseconds: Double(index % 40), roundTripMilliseconds: nil, isVideo: false),
      meanOpinionScore: (1...5).contains(rxLevel.rawValue)
        ? 4.4 - Double(index % 13) * 0.1 : nil)
    let txLevel = QualityLevel(rawValue: (index / 7) % 7) ?? .unknown
    return PeerSnapshot(
      peer: "10.0.\(index / 100).\(index % 100)", state: states[index % 3],
      stateSince: CaptureTime(nanosecondsSinceEpoch: 0), rx: rx,
      tx: DirectionSnapshot(level: txLevel, rawLevel: txLevel), rxPackets: 100, rxLost: 0,
      rxBitsPerSecond: 64_000, txPackets: 100, rxPacketsTotal: 100, rxLostTotal: 0,
      txPacketsTotal: 100, rxRetransmittedPackets: 0, txRetransmittedPackets: 0,
      rxFECPackets: 0, rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0,
      streams: 1)
  }

  /// A state whose last tick holds the 250 peers (in name order, as the engine publishes).
  static func peersState(count: Int = peerCount) -> AgentState {
    let peers = (0..<count).map(peer).sorted { $0.peer < $1.peer }
    let snapshot = Snapshot(
      time: CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000), intervalSeconds: 2,
      hostRx: .down, hostTx: .down, peers: peers, streams: [])
    let state = AgentState(engine: Engine())
    state.update { $0.lastTick = Engine.TickResult(snapshot: snapshot, events: []) }
    return state
  }

  static func test(
    _ state: AgentState, _ body: @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router, body)
  }

  /// The answer to `uri`, which must be 200.
  static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> [String: Any] {
    try await client.execute(uri: uri, method: .get) { response in
      XCTAssertEqual(response.status, .ok, "\(uri): \(String(buffer: response.body))")
      return try HTTPRoutesTests.json(response.body)
    }
  }

  static func names(_ document: [String: Any], _ list: String = "peers") -> [String] {
    (document[list] as? [[String: Any]] ?? []).compactMap { $0["peer"] as? String }
  }

  func testOffsetPagesAreDisjointAndCoverEveryPeerWorstFirst() async throws {
    try await Self.test(Self.peersState()) { client in
      var seen: [String] = []
      var worst: [Int] = []
      for (offset, expected) in [(0, 100), (100, 100), (200, 50), (250, 0)] {
        let page = try await Self.get(client, "/api/v1/peers?limit=100&offset=\(offset)")
        XCTAssertEqual(page["total"] as? Int, 250)
        XCTAssertEqual(page["matched"] as? Int, 250)
        XCTAssertEqual(page["offset"] as? Int, offset)
        XCTAssertEqual(page["limit"] as? Int, 100)
        XCTAssertEqual(page["sort"] as? String, "worst")
        XCTAssertEqual(Self.names(page).count, expected)
        // More follow after the first two pages only.
        XCTAssertEqual(page["next_cursor"] is String, offset < 200, "offset \(offset)")
        seen += Self.names(page)
        worst += (page["peers"] as? [[String: Any]] ?? []).map {
          max($0["rx_quality"] as? Int ?? -1, $0["tx_quality"] as? Int ?? -1)
        }
      }
      XCTAssertEqual(seen.count, 250)
      XCTAssertEqual(Set(seen), Set((0..<250).map { "10.0.\($0 / 100).\($0 % 100)" }))
      XCTAssertEqual(worst, worst.sorted(by: >), "worst level first across the pages")
      // 65 peers are down (worse level 6), then 55 very bad; the worst of all is 10.0.1.42
      // (i = 142: tx down, the lowest MOS of the down ones, 3.2), then 10.0.1.94 (also 3.2).
      XCTAssertEqual(worst.filter { $0 == 6 }.count, 65)
      XCTAssertEqual(worst.filter { $0 == 5 }.count, 55)
      XCTAssertEqual(Array(seen.prefix(2)), ["10.0.1.42", "10.0.1.94"])
    }
  }

  func testTheDefaultPageIs100WorstFirstWithEveryLevelCounted() async throws {
    try await Self.test(Self.peersState()) { client in
      let page = try await Self.get(client, "/api/v1/peers")
      XCTAssertEqual(Self.names(page).count, 100)
      XCTAssertEqual((page["host"] as? [String: Any])?["rx_quality"] as? Int, 6)
      let levels = try XCTUnwrap(page["levels"] as? [String: [String: Int]])
      // rx: i % 7 over 0..<250 is 36 of levels 0 to 4 and 35 of 5 and 6.
      XCTAssertEqual(
        levels["rx"],
        [
          "unknown": 36, "excellent": 36, "good": 36, "poor": 36, "bad": 36, "very_bad": 35,
          "down": 35,
        ])
      // tx: (i / 7) % 7 is 0 for i < 7 and the last 5 (245...249), 35 of each other.
      XCTAssertEqual(levels["tx"]?["unknown"], 40)
      XCTAssertEqual(levels["tx"]?["down"], 35)
      XCTAssertEqual(
        levels["worst"],
        [
          "unknown": 6, "excellent": 16, "good": 26, "poor": 36, "bad": 46, "very_bad": 55,
          "down": 65,
        ])
    }
  }

  func testCursorPagesAreTheOffsetPages() async throws {
    try await Self.test(Self.peersState()) { client in
      // Interrupted and poor or worse: 67 of the 202 poor or worse.
      for (query, count) in [
        ("sort=worst", 250), ("sort=name", 250), ("sort=loss", 250),
        ("min_level=poor&state=interrupted", 67),
      ] {
        var byOffset: [String] = []
        for offset in stride(from: 0, to: 250, by: 60) {
          byOffset += Self.names(
            try await Self.get(client, "/api/v1/peers?limit=60&offset=\(offset)&\(query)"))
        }
        var byCursor: [String] = []
        var cursor: String?
        var requests = 0
        repeat {
          let page = try await Self.get(
            client, "/api/v1/peers?limit=60&\(query)" + (cursor.map { "&cursor=\($0)" } ?? ""))
          XCTAssertEqual(page["offset"] as? Int, byCursor.count, query)
          byCursor += Self.names(page)
          cursor = page["next_cursor"] as? String
          requests += 1
        } while cursor != nil && requests < 10
        XCTAssertEqual(byOffset.count, count, query)
        XCTAssertEqual(byCursor, byOffset, query)
        XCTAssertEqual(Set(byCursor).count, byCursor.count, query)
      }
    }
  }

  func testSortsByNameAndByLoss() async throws {
    try await Self.test(Self.peersState()) { client in
      let byName = Self.names(try await Self.get(client, "/api/v1/peers?sort=name&limit=3"))
      XCTAssertEqual(byName, ["10.0.0.0", "10.0.0.1", "10.0.0.10"])
      // Loss 37 i % 250 is 249 (0.249) at i = 27, 248 at i = 54.
      let page = try await Self.get(client, "/api/v1/peers?sort=loss&limit=2")
      XCTAssertEqual(Self.names(page), ["10.0.0.27", "10.0.0.54"])
      let losses = (page["peers"] as? [[String: Any]])?.compactMap {
        $0["rx_loss_ratio"] as? Double
      }
      XCTAssertEqual(losses, [0.249, 0.248])
    }
  }

  func testFiltersCountTheMatchingPeersAndTheirLevels() async throws {
    try await Self.test(Self.peersState()) { client in
      // Worse level poor (3) or worse: 36 + 46 + 55 + 65.
      let poor = try await Self.get(client, "/api/v1/peers?min_level=poor&limit=1000")
      XCTAssertEqual(poor["matched"] as? Int, 202)
      XCTAssertEqual(poor["total"] as? Int, 250)
      XCTAssertEqual(Self.names(poor).count, 202)
      XCTAssertNil(poor["next_cursor"] as? String)
      let levels = poor["levels"] as? [String: [String: Int]]
      XCTAssertEqual(levels?["worst"]?["good"], 0)
      XCTAssertEqual(levels?["worst"]?["bad"], 46)
      let byNumber = try await Self.get(client, "/api/v1/peers?min_level=3&limit=0")
      XCTAssertEqual(byNumber["matched"] as? Int, 202)
      XCTAssertEqual(Self.names(byNumber), [], "limit=0: the counts alone")
      // Two of every three are interrupted or disconnected: as a list and repeated.
      for states in ["state=interrupted,disconnected", "state=interrupted&state=disconnected"] {
        let page = try await Self.get(client, "/api/v1/peers?min_level=poor&\(states)")
        XCTAssertEqual(page["matched"] as? Int, 134, states)
        XCTAssertEqual(Self.names(page).count, 100, states)
      }
      let prefix = try await Self.get(client, "/api/v1/peers?peer=10.0.1.&min_level=down")
      XCTAssertEqual(prefix["matched"] as? Int, 26)
      XCTAssertTrue(Self.names(prefix).allSatisfy { $0.hasPrefix("10.0.1.") })
      // .9: 10.0.0.9, 10.0.0.90 to 99, the same in 10.0.1, and 10.0.2.9.
      let part = try await Self.get(client, "/api/v1/peers?peer_contains=.9")
      XCTAssertEqual(part["matched"] as? Int, 23)
      let none = try await Self.get(client, "/api/v1/peers?peer=192.0.2.")
      XCTAssertEqual(none["matched"] as? Int, 0)
      XCTAssertEqual(none["offset"] as? Int, 0)
    }
  }

  func testBadParametersAreRefusedWithOneLineOfJSON() async throws {
    let cursorOfStreams = PageCursor.streams(from: 3).text
    let nameCursor = PageCursor.peers(.name, after: PeerSortKey(first: 0, second: 0, name: "a"))
    try await Self.test(Self.peersState()) { client in
      let refused: [(String, String)] = [
        ("limit=abc", "limit abc: a whole number from 0 to 1000"),
        ("limit=1001", "limit 1001: a whole number from 0 to 1000"),
        ("limit=-1", "limit -1: a whole number from 0 to 1000"),
        ("limit=5&limit=6", "limit given 2 times: give it once"),
        ("offset=x", "offset x: a whole number from 0"),
        ("min_level=7", "min_level 7: a level from 0 to 6 or its name"),
        ("min_level=awful", "min_level awful: a level from 0 to 6 or its name"),
        ("state=connected,gone", "state gone: one of connecting, connected,"),
        ("sort=loudest", "sort loudest: one of worst, name, loss, jitter"),
        ("cursor=bm90IGEgY3Vyc29y", "cursor bm90IGEgY3Vyc29y: not a cursor of /api/v1/peers"),
        ("cursor=AAAA", "cursor AAAA: not a cursor of /api/v1/peers"),
        ("cursor=\(cursorOfStreams)", "not a cursor of /api/v1/peers"),
        ("cursor=\(nameCursor.text)&sort=worst", "cursor: made for sort=name, asked with"),
        ("limt=5", "limt: not a parameter of /api/v1/peers; it takes limit, offset,"),
      ]
      for (query, message) in refused {
        try await client.execute(uri: "/api/v1/peers?\(query)", method: .get) { response in
          XCTAssertEqual(response.status, .badRequest, query)
          XCTAssertEqual(response.headers[.contentType], "application/json")
          let text = String(buffer: response.body)
          XCTAssertEqual(text.filter { $0 == "\n" }.count, 1, text)
          let error = try HTTPRoutesTests.json(response.body)["error"] as? String ?? ""
          XCTAssertTrue(error.contains(message), "\(query): \(error)")
        }
      }
      try await client.execute(uri: "/api/v1/streams?sort=name", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
      }
    }
  }

  func testACursorResumesAfterItsPeerInALaterTick() async throws {
    let state = Self.peersState()
    try await Self.test(state) { client in
      let first = try await Self.get(client, "/api/v1/peers?sort=name&limit=10")
      let cursor = try XCTUnwrap(first["next_cursor"] as? String)
      XCTAssertEqual(Self.names(first).last, "10.0.0.17")
      // The next tick lost the peers 10.0.0.18 and 10.0.0.19: the page resumes after
      // 10.0.0.17 all the same.
      state.update { published in
        var snapshot = published.lastTick?.snapshot
        snapshot?.time = CaptureTime(nanosecondsSinceEpoch: 1_767_225_602_000_000_000)
        snapshot?.peers.removeAll { ["10.0.0.18", "10.0.0.19"].contains($0.peer) }
        published.lastTick = snapshot.map { Engine.TickResult(snapshot: $0, events: []) }
      }
      let next = try await Self.get(client, "/api/v1/peers?limit=2&cursor=\(cursor)")
      XCTAssertEqual(next["sort"] as? String, "name", "the cursor's sort")
      XCTAssertEqual(Self.names(next), ["10.0.0.2", "10.0.0.20"])
      XCTAssertEqual(next["total"] as? Int, 248)
      XCTAssertEqual(next["offset"] as? Int, 10)
    }
  }

  func testStreamsPageAndFilterByTheirPeer() async throws {
    let state = Self.streamsState(peers: 25)
    try await Self.test(state) { client in
      var seen: [String] = []
      var cursor: String?
      repeat {
        let page = try await Self.get(
          client, "/api/v1/streams?limit=10" + (cursor.map { "&cursor=\($0)" } ?? ""))
        XCTAssertEqual(page["total"] as? Int, 25)
        XCTAssertEqual(page["matched"] as? Int, 25)
        seen += (page["streams"] as? [[String: Any]] ?? []).compactMap { $0["src"] as? String }
        cursor = page["next_cursor"] as? String
      } while cursor != nil && seen.count < 100
      XCTAssertEqual(seen.count, 25)
      XCTAssertEqual(Set(seen), Set((1...25).map { "198.51.100.\($0)" }))
      // 198.51.100.1 and 10 to 19.
      let filtered = try await Self.get(client, "/api/v1/streams?peer=198.51.100.1&limit=5")
      XCTAssertEqual(filtered["matched"] as? Int, 11)
      XCTAssertEqual((filtered["streams"] as? [Any])?.count, 5)
      let rest = try await Self.get(
        client,
        "/api/v1/streams?peer=198.51.100.1&limit=10&cursor="
          + (filtered["next_cursor"] as? String ?? ""))
      XCTAssertEqual(rest["offset"] as? Int, 5)
      XCTAssertEqual((rest["streams"] as? [Any])?.count, 6)
      XCTAssertNil(rest["next_cursor"] as? String)
      let interrupted = try await Self.get(client, "/api/v1/streams?state=interrupted")
      XCTAssertEqual(interrupted["matched"] as? Int, 0)
      let connected = try await Self.get(client, "/api/v1/streams?state=connected&limit=0")
      XCTAssertEqual(connected["matched"] as? Int, 25)
    }
  }

  /// An engine that has ticked over 2 s of one G.711 stream from each of `peers` remote
  /// addresses, 198.51.100.1 and on, to 192.0.2.1.
  static func streamsState(peers: Int) -> AgentState {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("192.0.2.0/24")].compactMap { $0 }
    var engine = Engine(configuration: configuration)
    let start: Int64 = 1_767_225_600_000_000_000
    let local = Endpoint(address: IPAddress(ipv4: 192, 0, 2, 1), port: 4000)
    for index in 0..<100 {
      let at = CaptureTime(nanosecondsSinceEpoch: start + Int64(index) * 20_000_000)
      for peer in 1...peers {
        let rtp = PacketBuilder.rtp(
          payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160),
          ssrc: UInt32(peer))
        let remote = Endpoint(address: IPAddress(ipv4: 198, 51, 100, UInt8(peer)), port: 6000)
        let frame = PacketBuilder.frame(source: remote, destination: local, payload: rtp)
        frame.withUnsafeBytes {
          engine.ingest(frame: $0, originalLength: $0.count, linkType: .ethernet, at: at)
        }
      }
    }
    let result = engine.tick(at: CaptureTime(nanosecondsSinceEpoch: start + 2_000_000_000))
    let state = AgentState(engine: engine)
    state.update { $0.lastTick = result }
    return state
  }
}
