import NetQualityCore
import NetQualitySynth
import XCTest

/// Issue 37: INVITEs into silence (scans, floods) stay bounded: a source's calls that nothing
/// answered are capped while open, and those that end so are recorded one by one only within
/// a budget per source and minute, the rest counted and summed by source.
final class SilentCallFloodTests: XCTestCase {
  static let localSIP = Endpoint(address: Scenario.local.address, port: 5060)
  static let sourceA = Endpoint(address: IPAddress(ipv4: 203, 0, 113, 9), port: 5060)
  static let sourceB = Endpoint(address: IPAddress(ipv4: 203, 0, 113, 10), port: 5060)

  func invite(_ scenario: inout Scenario, _ callID: String, from source: Endpoint, at: Double) {
    let call = builder(callID, from: source)
    scenario.feed(
      PacketBuilder.frame(
        source: source, destination: Self.localSIP, payload: call.request("INVITE", cseq: 1)),
      at: at)
  }

  func answer(
    _ scenario: inout Scenario, _ callID: String, from source: Endpoint, status: Int, at: Double
  ) {
    let call = builder(callID, from: source)
    scenario.feed(
      PacketBuilder.frame(
        source: Self.localSIP, destination: source, payload: call.response(status, cseq: 1)),
      at: at)
  }

  func builder(_ callID: String, from source: Endpoint) -> SIPBuilder {
    SIPBuilder(
      callID: callID, caller: source, callee: Self.localSIP, callerUser: "scanner",
      calleeUser: "100", callerTag: "from-\(callID)", calleeTag: "to-\(callID)")
  }

  func testASourcesUnansweredCallsAreCappedWhileOpen() throws {
    var scenario = Scenario { $0.calls.maxSilentPerSource = 3 }
    for index in 0..<5 {
      invite(&scenario, "a-\(index)", from: Self.sourceA, at: 0.1 + Double(index) * 0.01)
    }
    invite(&scenario, "b-0", from: Self.sourceB, at: 0.2)
    scenario.idle(until: 2.5)
    var calls = try XCTUnwrap(scenario.last?.calls)
    XCTAssertEqual(calls.activeTotal, 4, "3 of A's, B's one")
    XCTAssertEqual(calls.counters.notTrackedSilentSource, 2)
    XCTAssertEqual(calls.counters.notTracked, 0)
    // A 100 Trying answers one of A's: A has room for one more unanswered call.
    answer(&scenario, "a-0", from: Self.sourceA, status: 100, at: 3.0)
    invite(&scenario, "a-5", from: Self.sourceA, at: 3.1)
    invite(&scenario, "a-6", from: Self.sourceA, at: 3.2)
    scenario.idle(until: 4.5)
    calls = try XCTUnwrap(scenario.last?.calls)
    XCTAssertEqual(calls.activeTotal, 5)
    XCTAssertEqual(calls.counters.notTrackedSilentSource, 3)
  }

  func testSilentEndsAreRecordedWithinTheBudgetAndTheRestSummedBySource() throws {
    var scenario = Scenario {
      $0.calls.silentRecordsPerSourcePerMinute = 2
      $0.calls.silentRecordsPerMinute = 3
    }
    for index in 0..<5 {
      invite(&scenario, "a-\(index)", from: Self.sourceA, at: 0.1 + Double(index) * 0.01)
      invite(&scenario, "b-\(index)", from: Self.sourceB, at: 0.2 + Double(index) * 0.01)
    }
    // A call that was rejected is always recorded, from the same source.
    invite(&scenario, "a-busy", from: Self.sourceA, at: 0.5)
    answer(&scenario, "a-busy", from: Self.sourceA, status: 486, at: 0.6)
    scenario.idle(until: 50)

    let records = scenario.ticks.flatMap(\.snapshot.calls.ended)
    let silent = records.filter(\.noResponse)
    XCTAssertEqual(silent.count, 3, "the budget of the minute in all")
    XCTAssertTrue(silent.allSatisfy { $0.endReason == .noAnswer && $0.finalStatus == nil })
    XCTAssertEqual(
      Dictionary(grouping: silent) { $0.callID?.first ?? "?" }.mapValues(\.count)["a"], 2,
      "2 of A's (its budget)")
    let busy = try XCTUnwrap(records.first { $0.callID == "a-busy" })
    XCTAssertFalse(busy.noResponse)
    XCTAssertEqual(busy.finalStatus, 486)

    let unrecorded = scenario.ticks.flatMap(\.snapshot.calls.unrecorded)
    let bySource = Dictionary(grouping: unrecorded, by: \.source).mapValues {
      $0.reduce(0) { $0 + $1.calls }
    }
    XCTAssertEqual(bySource, [Self.sourceA.address: 3, Self.sourceB.address: 4])
    let counters = try XCTUnwrap(scenario.last?.calls.counters)
    XCTAssertEqual(counters.unrecordedSilent, 7)
    // Every call is counted, recorded or not.
    XCTAssertEqual(counters.ended[.sip]?[.noAnswer], 10)
    XCTAssertEqual(counters.failedByStatusClass, ["4xx": 1, "none": 10])
  }
}
