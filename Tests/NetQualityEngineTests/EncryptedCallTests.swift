import NetQualityCore
import NetQualitySynth
import XCTest

/// A WebRTC call as a capture shows it: RTP headers in the clear, SRTCP unreadable, and around
/// them ICE checks (STUN) and DTLS records. The round trip comes from the checks, and the end of
/// the call from a DTLS alert or a released TURN allocation, with no disconnection.
final class EncryptedCallTests: XCTestCase {
  static func stun(type: UInt16, transaction: UInt8, attributes: [UInt8] = []) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendBigEndian(type)
    bytes.appendBigEndian(UInt16(attributes.count))
    bytes.appendBigEndian(UInt32(0x2112_A442))
    bytes.append(contentsOf: (0..<12).map { UInt8(truncatingIfNeeded: Int(transaction) * 31 + $0) })
    return bytes + attributes
  }

  /// RFC 6347 section 4.1: an encrypted alert record (content type 21) of epoch 1.
  static let dtlsAlert: [UInt8] =
    [21, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 26] + Array(repeating: 0x5A, count: 26)

  /// ChannelData framing (RFC 8656 section 12.4) on channel 0x4000.
  static func channelData(_ inner: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0x40, 0x00]
    bytes.appendBigEndian(UInt16(inner.count))
    return bytes + inner
  }

  func frame(_ payload: [UInt8], from: Endpoint, to: Endpoint, relayed: Bool) -> [UInt8] {
    PacketBuilder.frame(
      source: from, destination: to, payload: relayed ? Self.channelData(payload) : payload)
  }

  /// Audio both ways for `seconds`; every 2.5 s a consent check each way: ours answered after
  /// `roundTrip`, the peer's answered by us after 0.2 ms (which measures nothing of the network).
  func encryptedCall(
    _ scenario: inout Scenario, seconds: Double, roundTrip: Double, relayed: Bool,
    extra: [(Double, [UInt8])] = []
  ) {
    var frames = extra
    for index in 0..<Int(seconds * 50) {
      for (from, to, ssrc) in [
        (Scenario.remote, Scenario.local, UInt32(0xAAAA)),
        (Scenario.local, Scenario.remote, 0xBBBB),
      ] {
        let rtp = PacketBuilder.rtp(
          payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960),
          ssrc: ssrc)
        frames.append((Double(index) * 0.02, frame(rtp, from: from, to: to, relayed: relayed)))
      }
    }
    for check in 0..<Int(seconds / 2.5) {
      let sent = 0.3 + Double(check) * 2.5
      let ours = UInt8(2 * check)
      let theirs = UInt8(2 * check + 1)
      frames.append(
        (
          sent,
          frame(
            Self.stun(type: 0x0001, transaction: ours), from: Scenario.local, to: Scenario.remote,
            relayed: relayed)
        ))
      frames.append(
        (
          sent + roundTrip,
          frame(
            Self.stun(type: 0x0101, transaction: ours), from: Scenario.remote, to: Scenario.local,
            relayed: relayed)
        ))
      frames.append(
        (
          sent + 1,
          frame(
            Self.stun(type: 0x0001, transaction: theirs), from: Scenario.remote, to: Scenario.local,
            relayed: relayed)
        ))
      frames.append(
        (
          sent + 1.0002,
          frame(
            Self.stun(type: 0x0101, transaction: theirs), from: Scenario.local, to: Scenario.remote,
            relayed: relayed)
        ))
    }
    for (time, frame) in frames.sorted(by: { $0.0 < $1.0 }) { scenario.feed(frame, at: time) }
  }

  func testTheRoundTripComesFromICEChecksWhenRTCPIsEncrypted() throws {
    for relayed in [false, true] {
      var scenario = Scenario()
      encryptedCall(&scenario, seconds: 12, roundTrip: 0.1, relayed: relayed)
      let peer = try XCTUnwrap(scenario.lastPeer)
      XCTAssertEqual(
        try XCTUnwrap(peer.roundTripMilliseconds), 100, accuracy: 0.001, "relayed: \(relayed)")
      XCTAssertEqual(peer.roundTripSource, .stun)
      // Delay reaches the E-model: the same call at 300 ms scores a lower R.
      var slower = Scenario()
      encryptedCall(&slower, seconds: 12, roundTrip: 0.3, relayed: relayed)
      let slowerPeer = try XCTUnwrap(slower.lastPeer)
      XCTAssertEqual(try XCTUnwrap(slowerPeer.roundTripMilliseconds), 300, accuracy: 0.001)
      XCTAssertLessThan(try XCTUnwrap(slowerPeer.rx.rating), try XCTUnwrap(peer.rx.rating))
      // Both directions' checks pair; the peer's, answered here, time this host (0.2 ms) and
      // stay with the local address, never the peer.
      XCTAssertEqual(scenario.engine.analyzer.captureCounters.stunRoundTrips, 8)
      let local = try XCTUnwrap(
        scenario.engine.analyzer.facts(of: Scenario.local.address)?.stun)
      XCTAssertEqual(try XCTUnwrap(local.lastSeconds), 0.0002, accuracy: 1e-6)
    }
  }

  func testADTLSAlertEndsTheCallWithoutADisconnection() throws {
    for relayed in [false, true] {
      var scenario = Scenario()
      encryptedCall(&scenario, seconds: 10, roundTrip: 0.05, relayed: relayed)
      // The local side hangs up: close_notify to the peer, whose last packets were in flight.
      scenario.feed(
        frame(Self.dtlsAlert, from: Scenario.local, to: Scenario.remote, relayed: relayed), at: 9.99
      )
      scenario.idle(until: 40)
      let kinds = scenario.events.map(\.kind)
      XCTAssertEqual(kinds.filter { $0 == .ended }.count, 1, "relayed: \(relayed) \(kinds)")
      XCTAssertFalse(kinds.contains(.interrupted))
      XCTAssertFalse(kinds.contains(.disconnected))
      XCTAssertFalse(kinds.contains(.alertFiring))
      let ended = try XCTUnwrap(scenario.events.first { $0.kind == .ended })
      XCTAssertEqual(ended.endReason, .dtlsAlert)
      XCTAssertEqual(ended.time.seconds(since: Scenario.time(0)), 9.99, accuracy: 0.011)
    }
  }

  /// A capture that stops within the grace after the hangup: nothing can follow the end of
  /// the input, so the replay's last tick says ended.
  func testAReplayEndingJustAfterTheHangupEndsTheCall() throws {
    var frames: [(Double, [UInt8])] = []
    for index in 0..<500 {
      let rtp = PacketBuilder.rtp(
        payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960),
        ssrc: 0xAAAA)
      frames.append(
        (Double(index) * 0.02, frame(rtp, from: Scenario.remote, to: Scenario.local, relayed: true))
      )
    }
    frames.append(
      (10.0, frame(Self.dtlsAlert, from: Scenario.remote, to: Scenario.local, relayed: true)))
    frames.append(
      (
        10.5,
        frame(
          Self.stun(type: 0x0001, transaction: 7), from: Scenario.local, to: Scenario.remote,
          relayed: true)
      ))
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("192.0.2.0/24")].compactMap { $0 }
    var engine = Engine(configuration: configuration)
    var schedule = TickSchedule(intervalSeconds: 2)
    var ticks: [Engine.TickResult] = []
    for (time, bytes) in frames {
      bytes.withUnsafeBytes {
        engine.replay(
          frame: $0, originalLength: $0.count, linkType: .ethernet, at: Scenario.time(time),
          schedule: &schedule, onTick: { ticks.append($0) }, onSkip: { _ in })
      }
    }
    XCTAssertNotEqual(ticks.last?.snapshot.peers.first?.state, .ended, "not before the end")
    engine.finishReplay(schedule: &schedule) { ticks.append($0) }
    XCTAssertEqual(ticks.last?.snapshot.peers.first?.state, .ended)
    XCTAssertEqual(ticks.last?.events.first { $0.kind == .ended }?.endReason, .dtlsAlert)
  }

  func testATURNReleaseEndsTheCall() throws {
    var scenario = Scenario()
    encryptedCall(&scenario, seconds: 10, roundTrip: 0.05, relayed: true)
    // RFC 8656 section 7.2: Refresh with LIFETIME 0, from the peer (a TURN client here).
    let release = Self.stun(
      type: 0x0004, transaction: 99, attributes: [0x00, 0x0D, 0x00, 0x04, 0, 0, 0, 0])
    scenario.feed(
      frame(release, from: Scenario.remote, to: Scenario.local, relayed: false), at: 10.01)
    scenario.idle(until: 40)
    let ended = try XCTUnwrap(scenario.events.first { $0.kind == .ended })
    XCTAssertEqual(ended.endReason, .turnAllocationReleased)
    XCTAssertFalse(scenario.events.contains { $0.kind == .disconnected || $0.kind == .alertFiring })
  }

  /// An alert on one of the peer's flows while its media goes on (another call from the same
  /// address) ends nothing; a refresh that keeps the allocation neither.
  func testAnEndSignalFollowedByMediaEndsNothing() throws {
    var scenario = Scenario()
    let keep = Self.stun(
      type: 0x0004, transaction: 98, attributes: [0x00, 0x0D, 0x00, 0x04, 0, 0, 0x02, 0x58])
    encryptedCall(
      &scenario, seconds: 12, roundTrip: 0.05, relayed: false,
      extra: [
        (5.0, frame(Self.dtlsAlert, from: Scenario.remote, to: Scenario.local, relayed: false)),
        (5.1, frame(keep, from: Scenario.remote, to: Scenario.local, relayed: false)),
      ])
    XCTAssertFalse(scenario.events.contains { $0.kind == .ended })
    XCTAssertEqual(scenario.lastPeer?.state, .connected)
    XCTAssertEqual(scenario.engine.analyzer.captureCounters.turnAllocationsReleased, 0)
    XCTAssertEqual(scenario.engine.analyzer.captureCounters.dtlsAlerts, 1)
  }
}
