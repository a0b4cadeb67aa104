import Dispatch
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// Nothing waits on the ticker (issue 37): while a tick is harvested and scored, requests read
/// the last published tick at once, and the next publication replaces it.
final class TickPublicationReadTests: XCTestCase {
  func testRequestsReadTheLastTickWhileATickIsHeldUp() async throws {
    let state = HTTPRoutesTests.tickedState()
    guard let last = state.read(\.lastTick) else { return XCTFail("no tick") }
    XCTAssertFalse(last.snapshot.peers.isEmpty)
    let next = last.snapshot.time.advanced(bySeconds: 2)

    // A slow tick: the scorer is held by another thread (as a long scoring phase holds it),
    // so the ticker's tick cannot finish until it is let go.
    let holding = DispatchSemaphore(value: 0)
    let letGo = DispatchSemaphore(value: 0)
    let ticked = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      state.scorer.withLock { _ in
        holding.signal()
        letGo.wait()
      }
    }
    holding.wait()
    DispatchQueue.global().async {
      TickService(state: state, sinks: [PublishedStateSink(state: state)]).tick(at: next)
      ticked.signal()
    }
    XCTAssertEqual(ticked.wait(timeout: .now() + 0.2), .timedOut, "the tick is held up")

    // Meanwhile every reader answers at once, from the last published tick.
    let clock = ContinuousClock()
    let started = clock.now
    let (tick, table) = await HTTPServer.peerTable(state)
    let page = await HTTPServer.statusPage(state)
    XCTAssertLessThan(clock.now - started, .seconds(1))
    XCTAssertEqual(tick?.snapshot.time, last.snapshot.time)
    XCTAssertEqual(table.peers.map(\.peer), last.snapshot.peers.map(\.peer))
    XCTAssertEqual(page.status, .ok)

    // Let go: the tick publishes, and readers get the new one.
    letGo.signal()
    XCTAssertEqual(ticked.wait(timeout: .now() + 10), .success)
    let (after, afterTable) = await HTTPServer.peerTable(state)
    XCTAssertEqual(after?.snapshot.time, next)
    XCTAssertEqual(afterTable.time, next)
    XCTAssertEqual(afterTable.peers.map(\.peer), last.snapshot.peers.map(\.peer))
  }

  func testATickWithoutTheHTTPSinkLeavesTheLastTickReadable() async {
    let state = HTTPRoutesTests.tickedState()
    guard let last = state.read(\.lastTick) else { return XCTFail("no tick") }
    TickService(state: state, sinks: []).tick(at: last.snapshot.time.advanced(bySeconds: 2))
    let (tick, table) = await HTTPServer.peerTable(state)
    XCTAssertEqual(tick?.snapshot.time, last.snapshot.time)
    XCTAssertEqual(table.peers.map(\.peer), last.snapshot.peers.map(\.peer))
  }
}
