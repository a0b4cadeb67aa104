import NetQualitySynth
import XCTest

@testable import NetQualityCore

/// Silent peers at rest are handed their last snapshot instead of being scored again
/// (`RestingPeer`): every tick must be the same as scoring them, through disconnection,
/// timeout, forgetting, comebacks, a link going down and a reload.
final class RestingPeerTests: XCTestCase {
  static let local = IPAddress(ipv4: 10, 0, 0, 1)

  static func remote(_ number: Int) -> IPAddress {
    IPAddress(ipv4: UInt32(0xC612_0000 + number))  // 198.18.0.0/15
  }

  /// One G.711 packet each way between peer `number` and us (20 ms of audio each).
  static func feed(_ engine: inout Engine, _ number: Int, sequence: Int, at milliseconds: Int) {
    for (source, destination, ssrc) in [
      (remote(number), local, 0x5000_0000 + UInt32(number)),
      (local, remote(number), 0x6000_0000 + UInt32(number)),
    ] {
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: sequence),
        timestamp: UInt32(truncatingIfNeeded: sequence * 160), ssrc: ssrc)
      let frame = PacketBuilder.frame(
        source: Endpoint(address: source, port: 30000),
        destination: Endpoint(address: destination, port: 40000), payload: rtp)
      frame.withUnsafeBytes {
        engine.ingest(
          frame: $0, originalLength: $0.count, linkType: .ethernet, at: time(milliseconds))
      }
    }
  }

  static func time(_ milliseconds: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000 + Int64(milliseconds) * 1_000_000)
  }

  /// Whether peer `number` sends at `milliseconds`: four groups of ten.
  /// 0–9 stop at 6 s for good: disconnected at 8.8 s, at rest from 18 s, timed out at 21.8 s
  /// (while at rest), forgotten at 29.8 s. 10–19 stop at 6 s and come back at 28 s, timed out
  /// and at rest. 20–29 stop at 10 s and come back at 24 s, disconnected and at rest. 30–39
  /// never stop.
  static func sends(_ number: Int, at milliseconds: Int) -> Bool {
    switch number / 10 {
    case 0: milliseconds < 6_000
    case 1: milliseconds < 6_000 || milliseconds >= 28_000
    case 2: milliseconds < 10_000 || milliseconds >= 24_000
    default: true
    }
  }

  func testEveryTickIsTheSameAsScoringTheRestingPeers() {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix(address: Self.local)]
    configuration.timers.interruptedAfterSeconds = 1
    configuration.timers.disconnectedAfterSeconds = 3
    configuration.timers.timeoutAfterSeconds = 16
    configuration.forgetAfterTimeoutSeconds = 8
    var reusing = Engine(configuration: configuration)
    var scoring = Engine(configuration: configuration)
    scoring.reusesRestingPeers = false
    var restingSeen = 0
    var last: Snapshot?
    var milliseconds = 0
    while milliseconds < 46_000 {
      for number in 0..<40 where Self.sends(number, at: milliseconds) {
        Self.feed(&reusing, number, sequence: milliseconds / 200, at: milliseconds)
        Self.feed(&scoring, number, sequence: milliseconds / 200, at: milliseconds)
      }
      milliseconds += 200
      if milliseconds == 34_000 {
        // A reload: the peers at rest are scored again under the new settings.
        var reloaded = configuration
        reloaded.timers.disconnectedAfterSeconds = 4
        reusing.reconfigure(reloaded)
        scoring.reconfigure(reloaded)
      }
      if milliseconds == 36_000 || milliseconds == 38_000 {
        // The capture interface's link goes down and comes back.
        let up = milliseconds == 38_000
        XCTAssertEqual(
          reusing.linkChanged(interface: 0, up: up, at: Self.time(milliseconds)),
          scoring.linkChanged(interface: 0, up: up, at: Self.time(milliseconds)))
      }
      guard milliseconds % 2_000 == 0 else { continue }
      let reused = reusing.tick(at: Self.time(milliseconds))
      let scored = scoring.tick(at: Self.time(milliseconds))
      XCTAssertEqual(reused.snapshot, scored.snapshot, "tick at \(milliseconds) ms")
      XCTAssertEqual(reused.events, scored.events, "events at \(milliseconds) ms")
      last = reused.snapshot
      restingSeen = max(
        restingSeen,
        reusing.scorer.peers.names { $0.resting?.value.confirmed == true }.count)
    }
    // The check above compared something: peers did rest, came back and were forgotten.
    XCTAssertGreaterThanOrEqual(restingSeen, 20)
    XCTAssertEqual(
      scoring.scorer.peers.names { $0.resting != nil }.count, 0,
      "nothing rests when reuse is off")
    let peers = last?.peers ?? []
    XCTAssertEqual(peers.count, 30, "the first ten forgotten, the rest sending")
    XCTAssertTrue(peers.allSatisfy { $0.state == .connected }, "\(peers.map(\.state))")
  }
}
