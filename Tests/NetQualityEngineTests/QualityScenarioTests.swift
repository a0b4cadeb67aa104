import NetQualityCore
import NetQualitySynth
import XCTest

/// The quality model on whole calls: each test plays a scenario and checks the levels the
/// documented model (docs/quality-model.md) gives.
final class QualityScenarioTests: XCTestCase {
  func testCleanG711IsExcellent() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<20)
    let peer = try XCTUnwrap(scenario.lastPeer)
    XCTAssertEqual(peer.state, .connected)
    XCTAssertEqual(peer.rx.level, .excellent)
    XCTAssertEqual(peer.rx.inputs?.lossRatio, 0)
    XCTAssertEqual(peer.rxPackets, 100)
    XCTAssertEqual(try XCTUnwrap(peer.rx.meanOpinionScore), 4.4, accuracy: 0.05)
    // No receiver reports from the peer: nothing tells us how our uplink fares.
    XCTAssertEqual(peer.tx.level, .unknown)
    XCTAssertEqual(scenario.last?.hostRx, .excellent)
    XCTAssertTrue(scenario.events.allSatisfy { $0.kind == .connected })
  }

  /// The documented table: random loss at an exact rate per window, G.711 with concealment.
  func testLossLevelsNeverImproveAsLossGrows() throws {
    let expected: [(Int, QualityLevel)] = [
      (0, .excellent), (1, .excellent), (3, .excellent), (5, .good), (10, .poor), (20, .bad),
      (35, .veryBad),
    ]
    var previous = QualityLevel.excellent
    for (percent, level) in expected {
      var scenario = Scenario()
      scenario.call(seconds: 0..<30, rxDrop: exactRandomLoss(percent: percent))
      let peer = try XCTUnwrap(scenario.lastPeer)
      XCTAssertEqual(peer.rx.level, level, "\(percent) % loss")
      // The last packets before a tick may be lost or still to come: one packet of slack.
      XCTAssertEqual(
        try XCTUnwrap(peer.rx.inputs?.lossRatio), Double(percent) / 100, accuracy: 0.004)
      XCTAssertGreaterThanOrEqual(peer.rx.level, previous, "\(percent) % loss improved the level")
      previous = peer.rx.level
    }
  }

  func testUniformJitterOf120MillisecondsIsWorseThanClean() throws {
    var random = SplitMix64(seed: 5)
    let delays = (0..<2000).map { _ in Double(random.next() % 120_000) / 1_000_000 }
    var scenario = Scenario()
    scenario.call(seconds: 0..<30, rxDelay: { delays[$0] })
    let peer = try XCTUnwrap(scenario.lastPeer)
    // Packets delayed past the last tick are still on their way: at most one looks lost.
    XCTAssertLessThan(try XCTUnwrap(peer.rx.inputs?.lossRatio), 0.004)
    XCTAssertGreaterThan(try XCTUnwrap(peer.rx.inputs?.jitterMilliseconds), 30)
    XCTAssertGreaterThan(peer.rx.level, .excellent)
    XCTAssertEqual(peer.rx.limitedBy, .jitter)
  }

  func testRoundTripFromSenderAndReceiverReports() throws {
    var scenario = Scenario()
    for second in 0..<20 {
      scenario.call(seconds: Double(second)..<Double(second + 1))
      guard second % 5 == 4 else { continue }
      // Our SR leaves at t; the peer answers after holding it 30 ms; the tap sees the RR
      // 80 ms of network round trip + 30 ms later.
      let sent = Double(second) + 0.99
      let ntp = UInt64(3_900_000_000 + second) << 32
      let sr = RTCPBuilder.senderReport(
        ssrc: 0xBBBB, ntpTimestamp: ntp, rtpTimestamp: 0, packetCount: 50, octetCount: 8000)
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.localRTCP, destination: Scenario.remoteRTCP, payload: sr), at: sent)
      // The peer has received our packets up to the one sent at `second` + 0.98.
      let block = RTCPReportBlock(
        reporterSSRC: 0xAAAA, sourceSSRC: 0xBBBB, fractionLost: 0, cumulativeLost: 0,
        extendedHighestSequence: UInt32((second + 1) * 50 - 1), jitter: 8,
        lastSR: UInt32(truncatingIfNeeded: ntp >> 16), delaySinceLastSR: UInt32(0.030 * 65_536))
      let rr = RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: [block])
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: rr),
        at: sent + 0.110)
    }
    scenario.idle(until: 20.5)
    let peer = try XCTUnwrap(scenario.lastPeer)
    XCTAssertEqual(try XCTUnwrap(peer.roundTripMilliseconds), 80, accuracy: 1)
    XCTAssertEqual(peer.tx.level, .excellent)
    XCTAssertEqual(peer.tx.inputs?.roundTripMilliseconds ?? 0, 80, accuracy: 1)
    XCTAssertEqual(try XCTUnwrap(peer.tx.inputs?.jitterMilliseconds), 1, accuracy: 1e-9)
  }

  /// Plays a call in which both sides send SRs and answer each other's with RRs, as a host
  /// capture sees them: the peer's RR about our stream arrives `roundTrip` after our SR (plus
  /// the peer's 30 ms hold), while our RR about the peer's stream is seen 2 ms after the peer's
  /// SR (held 0.5 ms by our stack: a 1.5 ms loop through this host), later in the capture.
  private func callWithReportsBothWays(roundTrip: Double) -> Scenario {
    var scenario = Scenario()
    for second in 0..<20 {
      scenario.call(seconds: Double(second)..<Double(second + 1))
      guard second % 5 == 4 else { continue }
      let ourNTP = UInt64(3_900_000_000 + second) << 32
      let peerNTP = UInt64(3_800_000_000 + second) << 32
      let sent = Double(second) + 0.5
      let ourSR = RTCPBuilder.senderReport(
        ssrc: 0xBBBB, ntpTimestamp: ourNTP, rtpTimestamp: 0, packetCount: 50, octetCount: 8000)
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.localRTCP, destination: Scenario.remoteRTCP, payload: ourSR), at: sent)
      let peerSR = RTCPBuilder.senderReport(
        ssrc: 0xAAAA, ntpTimestamp: peerNTP, rtpTimestamp: 0, packetCount: 50, octetCount: 8000)
      let peerSRArrives = sent + roundTrip + 0.030
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: peerSR),
        at: peerSRArrives - 0.001)
      let aboutOurs = RTCPReportBlock(
        reporterSSRC: 0xAAAA, sourceSSRC: 0xBBBB, fractionLost: 0, cumulativeLost: 0,
        extendedHighestSequence: UInt32((second + 1) * 50 - 1), jitter: 8,
        lastSR: UInt32(truncatingIfNeeded: ourNTP >> 16), delaySinceLastSR: UInt32(0.030 * 65_536))
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.remoteRTCP, destination: Scenario.localRTCP,
          payload: RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: [aboutOurs])),
        at: peerSRArrives)
      let aboutTheirs = RTCPReportBlock(
        reporterSSRC: 0xBBBB, sourceSSRC: 0xAAAA, fractionLost: 0, cumulativeLost: 0,
        extendedHighestSequence: UInt32((second + 1) * 50 - 1), jitter: 8,
        lastSR: UInt32(truncatingIfNeeded: peerNTP >> 16),
        delaySinceLastSR: UInt32(0.0005 * 65_536))
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.localRTCP, destination: Scenario.remoteRTCP,
          payload: RTCPBuilder.receiverReport(ssrc: 0xBBBB, blocks: [aboutTheirs])),
        at: peerSRArrives + 0.001)
    }
    scenario.idle(until: 20.5)
    return scenario
  }

  func testPeerRoundTripComesFromThePeersReportsNotTheLocalLoop() throws {
    for roundTrip in [0.100, 0.300] {
      let scenario = callWithReportsBothWays(roundTrip: roundTrip)
      let tick = try XCTUnwrap(scenario.ticks.last)
      let peer = try XCTUnwrap(tick.snapshot.peers.first)
      XCTAssertEqual(try XCTUnwrap(peer.roundTripMilliseconds), roundTrip * 1000, accuracy: 1)
      XCTAssertEqual(peer.rx.inputs?.roundTripMilliseconds ?? 0, roundTrip * 1000, accuracy: 1)
      XCTAssertEqual(peer.tx.inputs?.roundTripMilliseconds ?? 0, roundTrip * 1000, accuracy: 1)
      // Each stream keeps its own sample: ours crosses the network, the peer's is the loop.
      let streams = tick.snapshot.streams
      let ours = try XCTUnwrap(streams.first { $0.direction == .tx }?.roundTripMilliseconds)
      let theirs = try XCTUnwrap(streams.first { $0.direction == .rx }?.roundTripMilliseconds)
      XCTAssertEqual(ours, roundTrip * 1000, accuracy: 1)
      XCTAssertEqual(theirs, 1.5, accuracy: 0.1)
    }
  }

  func testLongerRoundTripLowersTheScore() throws {
    let near = try XCTUnwrap(callWithReportsBothWays(roundTrip: 0.002).lastPeer)
    let far = try XCTUnwrap(callWithReportsBothWays(roundTrip: 0.300).lastPeer)
    // E-model delay impairment (ITU-T G.107 Id, docs/quality-model.md): 150 ms one way.
    XCTAssertLessThan(try XCTUnwrap(far.rx.rating), try XCTUnwrap(near.rx.rating) - 3)
    XCTAssertLessThan(
      try XCTUnwrap(far.rx.meanOpinionScore), try XCTUnwrap(near.rx.meanOpinionScore))
    XCTAssertLessThan(try XCTUnwrap(far.tx.rating), try XCTUnwrap(near.tx.rating) - 3)
  }

  func testPeerReportedLossMakesTxWorseThanRx() throws {
    var scenario = Scenario()
    for second in 0..<20 {
      scenario.call(seconds: Double(second)..<Double(second + 1))
      // Every second the peer counts our next 50 packets, 8 of them lost (16 %).
      let block = RTCPReportBlock(
        reporterSSRC: 0xAAAA, sourceSSRC: 0xBBBB, fractionLost: UInt8(8 * 256 / 50),
        cumulativeLost: Int32(8 * second),
        extendedHighestSequence: UInt32(second * 50 + 24), jitter: 0, lastSR: 0,
        delaySinceLastSR: 0)
      let rr = RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: [block])
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: rr),
        at: Double(second) + 0.5)
    }
    let peer = try XCTUnwrap(scenario.lastPeer)
    XCTAssertEqual(peer.rx.level, .excellent)
    // Lost over covered between consecutive reports, not the 8-bit fraction (40/256).
    XCTAssertEqual(try XCTUnwrap(peer.tx.inputs?.lossRatio), 8.0 / 50, accuracy: 1e-9)
    XCTAssertEqual(peer.tx.inputs?.packets, 50)
    XCTAssertEqual(peer.tx.level, .bad)
    XCTAssertGreaterThan(peer.tx.level, peer.rx.level)
    XCTAssertEqual(scenario.last?.hostTx, .bad)
  }

  func testWrapDuplicatesAndReorderingAreNotLoss() throws {
    var random = SplitMix64(seed: 11)
    let duplicated = (0..<2000).map { _ in random.chance(percent: 3) }
    let late = (0..<2000).map { _ in random.chance(percent: 2) }
    var scenario = Scenario()
    scenario.audio(
      seconds: 0..<30, firstSequence: 65_000, delay: { late[$0] ? 0.025 : 0 },
      duplicate: { duplicated[$0] })
    let levels = scenario.ticks.compactMap { $0.snapshot.peers.first?.rx.level }
    XCTAssertEqual(levels.count, 14)
    XCTAssertTrue(levels.allSatisfy { $0 == .excellent }, "\(levels)")
    let stream = try XCTUnwrap(scenario.engine.analyzer.report().streams.first)
    XCTAssertEqual(stream.lost, 0)
    XCTAssertGreaterThan(stream.duplicates, 30)
    XCTAssertGreaterThan(stream.reordered, 10)
    XCTAssertEqual(scenario.ticks.flatMap(\.snapshot.peers).map(\.rxLost).reduce(0, +), 0)
  }

  func testOneBadWindowDoesNotSwingTheLevelBackAndForth() throws {
    var scenario = Scenario()
    // 30 % loss during one 2 s window only.
    scenario.call(seconds: 0..<40, rxDrop: { (1000..<1100).contains($0) && $0 % 10 < 3 })
    let levels = scenario.ticks.compactMap { $0.snapshot.peers.first?.rx.level }
    var changes = 0
    for index in 1..<levels.count where levels[index] != levels[index - 1] { changes += 1 }
    // Down once, back up once: no flapping.
    XCTAssertEqual(changes, 2, "\(levels)")
    XCTAssertEqual(levels.last, .excellent)
  }
}
