import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// One tick's peers in memory at a time: the ticker lets the last tick's go before scoring the
/// next, the API's readers wait meanwhile and get the new tick, and the gate opens on every
/// path out of a tick.
final class PublicationGateTests: XCTestCase {
  func testReadersWaitWhileATickIsScoredAndGetTheNewOne() async throws {
    let state = HTTPRoutesTests.tickedState()
    guard let tick = state.read(\.lastTick) else { return XCTFail("no tick") }
    XCTAssertFalse(tick.snapshot.peers.isEmpty)
    // Open: a reader gets the tick at once.
    let (before, _) = await HTTPServer.peerTable(state)
    XCTAssertEqual(before?.snapshot.time, tick.snapshot.time)

    state.withdrawTick()
    XCTAssertNil(state.read(\.lastTick), "the last tick's peers are let go while scoring")
    XCTAssertNil(state.read(\.peerTable))
    let reader = Task { await HTTPServer.peerTable(state) }
    let deadline = ContinuousClock.now + .seconds(10)
    while state.gate.waitingReaders == 0 {
      guard ContinuousClock.now < deadline else { return XCTFail("the reader never waited") }
      await Task.yield()
    }
    // The next tick, one interval later, published by the HTTP sink: the reader resumes with it.
    var next = tick
    next.snapshot.time = tick.snapshot.time.advanced(bySeconds: 2)
    PublishedStateSink(state: state).publish(
      TickPublication(result: next, alerts: [], capture: CaptureCounters(), trackedStreams: 1))
    let (read, table) = await reader.value
    XCTAssertEqual(read?.snapshot.time, next.snapshot.time)
    XCTAssertEqual(table.time, next.snapshot.time)
    XCTAssertEqual(table.peers.map(\.peer), tick.snapshot.peers.map(\.peer))
    XCTAssertFalse(state.gate.isClosed)
    XCTAssertEqual(state.gate.waitingReaders, 0)
  }

  func testATickOpensTheGateWithOrWithoutTheHTTPSink() async {
    let state = HTTPRoutesTests.tickedState()
    guard let last = state.read(\.lastTick) else { return XCTFail("no tick") }
    let time = last.snapshot.time.advanced(bySeconds: 2)
    // No sink publishes: the ticker opens the gate itself; readers find no tick, not a hang.
    TickService(state: state, sinks: []).tick(at: time)
    XCTAssertFalse(state.gate.isClosed)
    let (none, empty) = await HTTPServer.peerTable(state)
    XCTAssertNil(none)
    XCTAssertTrue(empty.peers.isEmpty)
    // With the HTTP sink: the new tick, scored from the engine's streams.
    TickService(state: state, sinks: [PublishedStateSink(state: state)])
      .tick(at: time.advanced(bySeconds: 2))
    XCTAssertFalse(state.gate.isClosed)
    let (tick, table) = await HTTPServer.peerTable(state)
    XCTAssertEqual(tick?.snapshot.time, time.advanced(bySeconds: 2))
    XCTAssertEqual(table.peers.map(\.peer), last.snapshot.peers.map(\.peer))
  }
}
