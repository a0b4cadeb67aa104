import NetQualitySynth
import XCTest

@testable import NetQualityCore

/// Calls come and go: the streams of ended calls are forgotten after the configured timers,
/// the arrays shrink once most slots are free, and the calls still going are counted on as
/// if nothing happened.
final class ChurnTests: XCTestCase {
  static let local = Endpoint(address: IPAddress(ipv4: 10, 0, 0, 1), port: 40000)

  static func remote(_ number: Int) -> Endpoint {
    Endpoint(address: IPAddress(ipv4: UInt32(0xC612_0000 + number)), port: 30000)  // 198.18/15
  }

  /// One packet of stream `number` (its sequence number `sequence`, 20 ms of G.711 each).
  static func feed(_ engine: inout Engine, _ number: Int, sequence: Int, at milliseconds: Int) {
    let rtp = PacketBuilder.rtp(
      payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: sequence),
      timestamp: UInt32(truncatingIfNeeded: sequence * 160), ssrc: 0x5000_0000 + UInt32(number))
    let frame = PacketBuilder.frame(source: remote(number), destination: local, payload: rtp)
    frame.withUnsafeBytes {
      engine.ingest(
        frame: $0, originalLength: $0.count, linkType: .ethernet,
        at: CaptureTime(
          nanosecondsSinceEpoch: 1_767_225_600_000_000_000 + Int64(milliseconds) * 1_000_000))
    }
  }

  static func time(_ milliseconds: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000 + Int64(milliseconds) * 1_000_000)
  }

  func testForgottenStreamsAreCompactedAwayAndTheRestCountOn() {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("10.0.0.0/8")].compactMap { $0 }
    configuration.timers.interruptedAfterSeconds = 1
    configuration.timers.disconnectedAfterSeconds = 2
    configuration.timers.timeoutAfterSeconds = 4
    configuration.forgetAfterTimeoutSeconds = 2
    var engine = Engine(configuration: configuration)
    // 4,400 calls for 2 s (a packet every 200 ms), then only the first 600 go on: 86 % of the
    // slots free, past the three quarters that compact (at 4,096 slots or more).
    let calls = 4_400
    let survivors = 600
    var sequence = 0
    var milliseconds = 0
    var lastTick: Engine.TickResult?
    while milliseconds < 12_000 {
      let sending = milliseconds < 2_000 ? calls : survivors
      for number in 0..<sending { Self.feed(&engine, number, sequence: sequence, at: milliseconds) }
      sequence += 1
      milliseconds += 200
      if milliseconds % 2_000 == 0 { lastTick = engine.tick(at: Self.time(milliseconds)) }
    }
    // Silent since 2 s: forgotten at the tick 4 + 2 s later, and the slots given back.
    XCTAssertEqual(engine.analyzer.liveStreamCount, survivors)
    XCTAssertEqual(engine.analyzer.streamCount, survivors)
    XCTAssertEqual(engine.analyzer.captureCounters.forgottenStreams, Int64(calls - survivors))
    guard let tick = lastTick else { return XCTFail("no tick") }
    XCTAssertEqual(tick.snapshot.peers.count, survivors)
    // Every survivor's last window: 10 packets in 2 s, none lost, counted since the start.
    XCTAssertEqual(tick.snapshot.streams.count, survivors)
    XCTAssertTrue(tick.snapshot.streams.allSatisfy { $0.packets == 10 && $0.lost == 0 })
    XCTAssertTrue(tick.snapshot.streams.allSatisfy { $0.packetsTotal == 60 })
    XCTAssertTrue(tick.snapshot.peers.allSatisfy { $0.state == .connected })
    // Each peer's media was a call: the 3,800 that ended (at the timeout) give their slots
    // back, 1,368 bytes each (issue 37: kept for good, 137 MB after a TURN host's churn).
    XCTAssertEqual(engine.scorer.calls.liveCount, survivors)
    XCTAssertEqual(engine.scorer.calls.calls.count, survivors)
    XCTAssertLessThanOrEqual(engine.scorer.calls.calls.capacity, 2 * survivors)

    // New calls after the compaction get new slots and are counted from their first packet.
    for step in 0..<10 {
      for number in 0..<survivors {
        Self.feed(&engine, number, sequence: sequence, at: milliseconds)
      }
      for number in calls..<(calls + 300) {
        Self.feed(&engine, number, sequence: step, at: milliseconds)
      }
      sequence += 1
      milliseconds += 200
    }
    let after = engine.tick(at: Self.time(milliseconds))
    XCTAssertEqual(engine.analyzer.liveStreamCount, survivors + 300)
    XCTAssertEqual(after.snapshot.streams.filter { $0.packetsTotal == 10 }.count, 300)
    XCTAssertTrue(after.snapshot.streams.allSatisfy { $0.packets == 10 && $0.lost == 0 })
    // The newcomers' calls took the slots made again after the survivors', each its own.
    XCTAssertEqual(engine.scorer.calls.liveCount, survivors + 300)
    XCTAssertEqual(engine.scorer.calls.calls.count, survivors + 300)
    XCTAssertEqual(after.snapshot.calls.active[.media], survivors + 300)
  }
}
