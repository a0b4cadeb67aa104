import Foundation
import Hummingbird
import HummingbirdTesting
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// `/api/v1/calls`: the latest ended calls newest first, filtered by status code or class,
/// Call-ID, user and failure, with the calls open now; a parameter it does not take is a 400.
final class CallsAPITests: XCTestCase {
  static func call(_ id: String, status: Int, at seconds: Int64) -> CallRecord {
    let start = CaptureTime(nanosecondsSinceEpoch: seconds * 1_000_000_000)
    var record = CallRecord(
      id: id, kind: .sip, peers: ["192.0.2.7"], start: start,
      end: start.advanced(bySeconds: 3), endReason: status == 200 ? .byeCaller : .rejected)
    record.callID = "call-\(id)"
    record.fromUser = "alice"
    record.toUser = "bob-\(id)"
    record.finalStatus = status
    if status == 200 { record.answer = start.advanced(bySeconds: 1) }
    return record
  }

  /// The Call-IDs `uri` lists, in its order.
  static func callIDs(_ client: some TestClientProtocol, _ uri: String) async throws -> [String] {
    try await client.execute(uri: uri, method: .get) { response in
      XCTAssertEqual(response.status, .ok, uri)
      let calls = try XCTUnwrap(
        try HTTPRoutesTests.json(response.body)["calls"] as? [[String: Any]])
      return calls.compactMap { $0["call_id"] as? String }
    }
  }

  func testEndedCallsAreFilteredNewestFirst() async throws {
    let state = HTTPRoutesTests.tickedState()
    var worse = Self.call("d", status: 200, at: 103)
    worse.tx.worstLevel = .bad
    state.update {
      $0.recentCalls = [
        Self.call("a", status: 200, at: 100), Self.call("b", status: 486, at: 101),
        Self.call("c", status: 503, at: 102), worse,
      ]
    }
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      func ids(_ uri: String) async throws -> [String] { try await Self.callIDs(client, uri) }
      let all = try await ids("/api/v1/calls")
      XCTAssertEqual(all, ["call-d", "call-c", "call-b", "call-a"])
      let failed = try await ids("/api/v1/calls?failed=true")
      XCTAssertEqual(failed, ["call-c", "call-b"])
      let server = try await ids("/api/v1/calls?status=5xx")
      XCTAssertEqual(server, ["call-c"])
      let busy = try await ids("/api/v1/calls?status=486")
      XCTAssertEqual(busy, ["call-b"])
      let byUser = try await ids("/api/v1/calls?user=bob-a")
      XCTAssertEqual(byUser, ["call-a"])
      let byID = try await ids("/api/v1/calls?call_id=call-d&limit=1")
      XCTAssertEqual(byID, ["call-d"])
      try await client.execute(uri: "/api/v1/calls?limit=1", method: .get) { response in
        let document = try HTTPRoutesTests.json(response.body)
        XCTAssertEqual(document["matched"] as? Int, 4)
        XCTAssertEqual((document["calls"] as? [Any])?.count, 1)
        XCTAssertNotNil((document["active"] as? [String: Any])?["sip"])
      }
      // Ended in [from, to); at least this bad at some tick.
      let range = try await ids("/api/v1/calls?from=101&to=103")
      XCTAssertEqual(range, [])
      let ended = try await ids("/api/v1/calls?from=104&to=106")
      XCTAssertEqual(ended, ["call-c", "call-b"])
      let bad = try await ids("/api/v1/calls?quality=bad")
      XCTAssertEqual(bad, ["call-d"])
      for wrong in ["quality=awful", "from=yesterday", "to=nan", "from=inf"] {
        try await client.execute(uri: "/api/v1/calls?\(wrong)", method: .get) { response in
          XCTAssertEqual(response.status, .badRequest, wrong)
        }
      }
      try await client.execute(uri: "/api/v1/calls?stauts=5xx", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
      }
      try await client.execute(uri: "/api/v1/calls?status=busy", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
      }
    }
  }

  /// Issue 38: a call in progress is found by Call-ID or user with its figures so far
  /// (`state=active`), or by its id (`/api/v1/calls/{id}`, open or ended); an unknown id is a
  /// 404, an unknown state a 400.
  func testActiveCallsAndOneCallByID() async throws {
    let state = HTTPRoutesTests.tickedState()
    var open = Self.call("live", status: 200, at: 200)
    open.isOpen = true
    open.rx.packets = 1234
    open.rx.lost = 5
    state.update {
      $0.recentCalls = [Self.call("a", status: 200, at: 100)]
      $0.lastTick?.snapshot.calls.open = [open]
      $0.lastTick?.snapshot.calls.active[.sip] = 1
    }
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      func calls(_ uri: String) async throws -> [[String: Any]] {
        try await client.execute(uri: uri, method: .get) { response in
          XCTAssertEqual(response.status, .ok, uri)
          return try XCTUnwrap(
            try HTTPRoutesTests.json(response.body)["calls"] as? [[String: Any]])
        }
      }
      let active = try await calls("/api/v1/calls?state=active&user=bob-live")
      XCTAssertEqual(active.map { $0["call_id"] as? String }, ["call-live"])
      XCTAssertEqual(active.first?["state"] as? String, "active")
      XCTAssertTrue(active.first?["end"] is NSNull)
      XCTAssertTrue(active.first?["end_reason"] is NSNull)
      XCTAssertEqual((active.first?["rx"] as? [String: Any])?["lost"] as? Int, 5)
      let ended = try await calls("/api/v1/calls")
      XCTAssertEqual(ended.map { $0["call_id"] as? String }, ["call-a"])
      XCTAssertEqual(ended.first?["state"] as? String, "ended")
      let all = try await calls("/api/v1/calls?state=all")
      XCTAssertEqual(all.map { $0["call_id"] as? String }, ["call-live", "call-a"])
      for (id, callID) in [("live", "call-live"), ("a", "call-a")] {
        try await client.execute(uri: "/api/v1/calls/\(id)", method: .get) { response in
          XCTAssertEqual(response.status, .ok)
          let call = try HTTPRoutesTests.json(response.body)["call"] as? [String: Any]
          XCTAssertEqual(call?["call_id"] as? String, callID)
        }
      }
      try await client.execute(uri: "/api/v1/calls/nothing", method: .get) { response in
        XCTAssertEqual(response.status, .notFound)
      }
      try await client.execute(uri: "/api/v1/calls?state=open", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
      }
    }
  }

  /// Issue 38: the calls through this host that lost packets in a segment of the path
  /// (`lost_in`, the status page's "Lost where"); a segment it does not know is a 400.
  func testCallsAreFoundByWhereTheirPacketsWereLost() async throws {
    let state = HTTPRoutesTests.tickedState()
    let key = { (source: UInt32, destination: UInt32) in
      StreamKey(
        source: Endpoint(address: IPAddress(ipv4: source), port: 20000),
        destination: Endpoint(address: IPAddress(ipv4: destination), port: 30000), ssrc: 7)
    }
    let hop = { (upstream: Int64, relay: Int64, downstream: Int64?) in
      CallRecord.Hop(
        ssrc: 7, ingress: key(0x0ACF_0002, 0x0ACF_0001), egress: key(0x0ACF_0001, 0x0ACF_0003),
        upstreamLost: upstream, relayLost: relay, downstreamLost: downstream,
        addedJitterMilliseconds: nil)
    }
    var inside = Self.call("inside", status: 200, at: 100)
    inside.hops = [hop(0, 4, 0)]
    var before = Self.call("before", status: 200, at: 101)
    before.hops = [hop(9, 0, nil)]
    let direct = Self.call("direct", status: 200, at: 102)
    state.update { $0.recentCalls = [inside, before, direct] }
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      func ids(_ uri: String) async throws -> [String] { try await Self.callIDs(client, uri) }
      let relay = try await ids("/api/v1/calls?lost_in=relay")
      XCTAssertEqual(relay, ["call-inside"])
      let upstream = try await ids("/api/v1/calls?lost_in=upstream")
      XCTAssertEqual(upstream, ["call-before"])
      let downstream = try await ids("/api/v1/calls?lost_in=downstream")
      XCTAssertEqual(downstream, [])
      try await client.execute(uri: "/api/v1/calls?lost_in=inside", method: .get) { response in
        XCTAssertEqual(response.status, .badRequest)
      }
    }
  }
}
