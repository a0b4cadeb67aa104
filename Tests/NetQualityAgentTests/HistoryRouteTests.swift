import Foundation
import Hummingbird
import HummingbirdTesting
import NetQualityCore
import NetQualityExport
import NetQualityStore
import XCTest

@testable import NetQualityAgent

/// `/api/v1/history` and the storage metrics, with a real recorder writing a real file.
final class HistoryRouteTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-route-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  /// The routes' ticked state, with a recorder that has written its three ticks.
  func recordedState() throws -> (AgentState, [Engine.TickResult]) {
    var (engine, _) = HTTPRoutesTests.tickedEngine()
    let recorder = HistoryRecorder(
      settings: .init(
        path: directory.appendingPathComponent("history.db").path,
        maintenance: HistoryMaintenance(
          rawRetentionSeconds: .infinity, aggregateRetentionSeconds: .infinity, maxBytes: 0),
        runName: "test", version: "test"),
      log: { _, _ in })
    let state = AgentState(engine: engine, history: recorder)
    recorder.start()
    var results: [Engine.TickResult] = []
    // The ticked state's call started at 1,767,225,600 s and its last tick was 4 s in.
    for offset in [6.0, 8.0, 10.0] {
      let time = CaptureTime(
        nanosecondsSinceEpoch: CaptureTime.nanoseconds(1_767_225_600 + offset))
      let result = engine.tick(at: time)
      results.append(result)
      recorder.record(HistoryTick(result, renderCall: CallsJSON.recordText))
    }
    let deadline = Date().addingTimeInterval(10)
    while recorder.counters.ticksWritten < 3 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.01)
    }
    XCTAssertTrue(recorder.stop(deadline: Date().addingTimeInterval(5)))
    XCTAssertEqual(recorder.counters.ticksWritten, 3)
    state.update { $0.lastTick = results.last }
    return (state, results)
  }

  func test(
    _ state: AgentState, _ body: @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router, body)
  }

  func testHistoryAnswersTheRowsOfAPeer() async throws {
    let (state, results) = try recordedState()
    let peers = results.flatMap(\.snapshot.peers).filter { $0.peer == "198.51.100.2" }
    XCTAssertEqual(peers.count, 3, "the peer is in every tick written")
    try await test(state) { client in
      try await client.execute(uri: "/api/v1/history?peer=198.51.100.2&from=0", method: .get) {
        response in
        XCTAssertEqual(response.status, .ok)
        let object = try HTTPRoutesTests.json(response.body)
        let rows = try XCTUnwrap(object["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(object["truncated"] as? Bool, false)
        for (row, peer) in zip(rows, peers) {
          XCTAssertEqual(row["peer"] as? String, "198.51.100.2")
          XCTAssertEqual(row["rx_quality"] as? Int, peer.rx.level.rawValue)
          XCTAssertEqual(row["rx_packets"] as? Int, Int(peer.rxPackets))
          XCTAssertEqual(row["state"] as? String, peer.state.rawValue)
        }
      }
      try await client.execute(uri: "/api/v1/history?from=0&limit=2", method: .get) {
        response in
        let object = try HTTPRoutesTests.json(response.body)
        XCTAssertEqual((object["rows"] as? [Any])?.count, 2, "the newest two")
        XCTAssertEqual(object["truncated"] as? Bool, true)
      }
      try await client.execute(uri: "/api/v1/history?since=soon", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
        let object = try HTTPRoutesTests.json(response.body)
        XCTAssertTrue((object["error"] as? String)?.contains("not a duration") == true)
      }
      try await client.execute(uri: "/metrics", method: .get) { response in
        let text = String(buffer: response.body)
        XCTAssertTrue(text.contains("\nnetquality_storage_ticks_written_total 3\n"), text)
        XCTAssertTrue(text.contains("\nnetquality_storage_healthy 1\n"))
        XCTAssertTrue(text.contains("netquality_storage_errors_total{kind=\"disk_full\"} 0\n"))
      }
    }
  }

  /// The status page is for anyone who can reach the port: it names where its charts come
  /// from ("the history") but never the history file's path, nor any other path of the host.
  func testStatusPageNamesTheHistoryButNoPath() async throws {
    let (state, results) = try recordedState()
    let publication = TickPublication(
      result: try XCTUnwrap(results.last), alerts: [], capture: CaptureCounters(),
      trackedStreams: 1)
    PublishedStateSink(state: state).publish(publication)
    StatusPageSink(state: state).publish(publication)
    let directoryPath = directory.path
    try await test(state) { client in
      try await client.execute(uri: "/", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        let html = String(buffer: response.body)
        let footer = html.components(separatedBy: "<footer>").last ?? ""
        XCTAssertTrue(footer.contains("from the history."), footer)
        XCTAssertFalse(html.contains(directoryPath), html)
        XCTAssertFalse(html.contains("history.db"), html)
        XCTAssertFalse(html.contains(FileManager.default.temporaryDirectory.path), html)
      }
    }
  }

  /// Like `/api/v1/peers` and `/api/v1/streams`: a parameter the route does not take, or one
  /// given twice, is a one-line 400 saying what it takes, not an answer that ignored it.
  func testHistoryRefusesUnknownAndRepeatedParameters() async throws {
    let (state, _) = try recordedState()
    let refusals = [
      "/api/v1/history?peers=198.51.100.2&from=0":
        "peers: not a parameter of /api/v1/history; it takes peer, since, from, to, limit",
      "/api/v1/history?peer=a&peer=b": "peer given 2 times: give it once",
      "/api/v1/history?since=1h&since=2h": "since given 2 times: give it once",
      "/api/v1/history?from=0&limit=5&limit=6": "limit given 2 times: give it once",
    ]
    try await test(state) { client in
      for (uri, message) in refusals {
        try await client.execute(uri: uri, method: .get) { response in
          XCTAssertEqual(response.status, .badRequest, uri)
          XCTAssertEqual(response.headers[.contentType], "application/json")
          let body = String(buffer: response.body)
          XCTAssertEqual(body.filter { $0 == "\n" }.count, 1, body)
          XCTAssertEqual(try HTTPRoutesTests.json(response.body)["error"] as? String, message, uri)
        }
      }
      // The same checks as the lists', word for word.
      try await client.execute(uri: "/api/v1/peers?peer=a&peer=b", method: .get) { response in
        XCTAssertEqual(
          try HTTPRoutesTests.json(response.body)["error"] as? String,
          "peer given 2 times: give it once")
      }
    }
  }

  func testHistoryIsUnavailableWhenStorageIsOff() async throws {
    try await test(HTTPRoutesTests.tickedState()) { client in
      try await client.execute(uri: "/api/v1/history", method: .get) { response in
        XCTAssertEqual(response.status, .serviceUnavailable)
        let object = try HTTPRoutesTests.json(response.body)
        XCTAssertTrue((object["error"] as? String)?.contains("history is off") == true)
      }
    }
  }
}
