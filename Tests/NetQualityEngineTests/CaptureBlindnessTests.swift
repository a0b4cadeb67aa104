import NetQualityCore
import XCTest

/// Issue 39: after the agent was stopped for 25 s with a call flowing, the kernel dropped what
/// its capture ring could not hold, and the peer was interrupted, disconnected and recovered,
/// with the skipped sequence numbers lost, though nothing happened on the network. With the
/// drops noticed (`Engine.noticeCaptureDrops`) the gap in the capture is a blind span
/// (`CaptureBlindSpan`): no silence and no loss across it; a peer that fell silent before the
/// capture went blind is still interrupted at its own last packet's time.
final class CaptureBlindnessTests: XCTestCase {
  static let other = Endpoint(address: IPAddress(ipv4: 198, 51, 100, 9), port: 50_000)
  static let states: Set<EngineEvent.Kind> = [
    .connected, .interrupted, .disconnected, .timeout, .recovered, .ended, .held,
  ]

  /// The connection-state events of `peer`, in order.
  private func states(_ scenario: Scenario, _ peer: String = Scenario.peer) -> [EngineEvent] {
    scenario.events.filter { $0.peer == peer && Self.states.contains($0.kind) }
  }

  /// A call for 10 s, then nothing captured (the ring full, the rest dropped) until 35 s, then
  /// the call again; `noticed`: the capture thread saw the drop count grow at 34.9 s.
  private func stall(noticed: Bool) -> Scenario {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    if noticed { scenario.engine.noticeCaptureDrops(interface: 0, at: Scenario.time(34.9)) }
    scenario.call(seconds: 35..<45, firstSequence: 0)
    scenario.idle(until: 46)
    return scenario
  }

  func testNoSilenceNorLossAcrossTheCapturesBlindSpan() throws {
    let blind = stall(noticed: true)
    XCTAssertEqual(blind.events.filter { $0.peer == Scenario.peer }.map(\.kind), [.connected])
    XCTAssertTrue(blind.events.allSatisfy { $0.alert == nil }, "no alert")
    for tick in blind.ticks {
      let peer = try XCTUnwrap(tick.snapshot.peers.first { $0.peer == Scenario.peer })
      XCTAssertEqual(peer.state, .connected, "tick \(tick.snapshot.time)")
      XCTAssertEqual(peer.rxLostTotal, 0, "tick \(tick.snapshot.time)")
    }
    // 500 packets each side of the span were received, the 1,250 numbers between skipped.
    XCTAssertEqual(blind.lastPeer?.rxPacketsTotal, 1000)
    let span = blind.engine.analyzer.captureBlindSpan(interface: 0)
    XCTAssertEqual(span.count, 1)
    XCTAssertEqual(span.latest?.from, Scenario.time(9.98))
    XCTAssertEqual(span.latest?.to, Scenario.time(35))
    // 1,250 numbers of each direction's stream.
    XCTAssertEqual(blind.engine.analyzer.report().capture.packetsSkippedWhileBlind, 2500)
  }

  /// The same capture with the drops not noticed: what the engine said before.
  func testWithoutTheDropsTheGapIsTheNetworksSilence() throws {
    let unnoticed = stall(noticed: false)
    XCTAssertEqual(
      states(unnoticed).map(\.kind), [.connected, .interrupted, .disconnected, .recovered])
    XCTAssertEqual(unnoticed.engine.analyzer.captureBlindSpan(interface: 0).count, 0)
    // The numbers the capture missed, lost (the outage's loss).
    XCTAssertEqual(unnoticed.lastPeer?.rxLostTotal, 1250)
  }

  /// A peer silent 5 s before the capture went blind was silent on its own: interrupted and
  /// disconnected at its last packet + 4 s and + 12 s, whatever the capture saw later.
  func testAPeerSilentBeforeTheCaptureWentBlindIsInterruptedOnItsOwnTime() throws {
    var scenario = Scenario()
    scenario.audio(seconds: 0..<5)
    scenario.audio(from: Self.other, ssrc: 0xCCCC, seconds: 0..<10)
    scenario.engine.noticeCaptureDrops(interface: 0, at: Scenario.time(34.9))
    scenario.audio(from: Self.other, ssrc: 0xCCCC, seconds: 35..<40, firstSequence: 0)
    scenario.idle(until: 40)
    let events = states(scenario)
    XCTAssertEqual(events.map(\.kind), [.connected, .interrupted, .disconnected])
    XCTAssertEqual(events.dropFirst().map(\.time), [Scenario.time(8.98), Scenario.time(16.98)])
    // The other peer, heard until the capture went blind, was not.
    XCTAssertEqual(states(scenario, "198.51.100.9").map(\.kind), [.connected])
  }

  /// A tick while the drops' gap is awaited takes the capture as blind from its last packet;
  /// once a packet came with no gap (an overload), a peer silent since then is interrupted and
  /// disconnected: the open span does not outlive the wait (before, it hid the peer's silence
  /// for ever).
  func testAnOpenSpanEndsWithTheWait() throws {
    var scenario = Scenario()
    for second in 0..<10 {  // both peers, in time order
      let range = Double(second)..<Double(second + 1)
      scenario.audio(seconds: range)
      scenario.audio(from: Self.other, ssrc: 0xCCCC, seconds: range)
    }
    scenario.engine.noticeCaptureDrops(interface: 0, at: Scenario.time(9.99))
    scenario.idle(until: 10)  // the tick at 10 s: the gap still awaited
    scenario.audio(from: Self.other, ssrc: 0xCCCC, seconds: 10..<30, firstSequence: 0)
    scenario.idle(until: 30)
    XCTAssertEqual(scenario.engine.analyzer.captureBlindSpan(interface: 0).count, 0)
    let events = states(scenario)
    XCTAssertEqual(events.map(\.kind), [.connected, .interrupted, .disconnected])
    // The tick at 10 s, while the drops' gap was awaited, took the peer as heard until then:
    // 4 s and 12 s after it, not after its last packet 20 ms before.
    XCTAssertEqual(events.dropFirst().map(\.time), [Scenario.time(14), Scenario.time(22)])
  }

  /// Drops without a gap (an overload: the ring full for moments) make no span, and a later
  /// silence is the network's.
  func testDropsWithoutAGapMakeNoSpan() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    scenario.engine.noticeCaptureDrops(interface: 0, at: Scenario.time(9.5))
    scenario.call(seconds: 10..<12)
    scenario.idle(until: 30)
    XCTAssertEqual(scenario.engine.analyzer.captureBlindSpan(interface: 0).count, 0)
    XCTAssertEqual(states(scenario).map(\.kind), [.connected, .interrupted, .disconnected])
  }
}
