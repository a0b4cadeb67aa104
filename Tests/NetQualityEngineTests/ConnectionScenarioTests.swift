import NetQualityCore
import NetQualitySynth
import XCTest

/// Connection states on whole calls: silences, recovery, timeout, BYE.
final class ConnectionScenarioTests: XCTestCase {
  private func firstEvent(_ kind: EngineEvent.Kind, in scenario: Scenario) -> EngineEvent? {
    scenario.events.first { $0.kind == kind }
  }

  func testFifteenSecondSilenceInterruptsDisconnectsAndRecovers() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<20)
    scenario.call(seconds: 35..<50)
    let lastBefore = 19.98
    let interrupted = try XCTUnwrap(firstEvent(.interrupted, in: scenario))
    XCTAssertEqual(interrupted.time, Scenario.time(lastBefore + 4))
    let disconnected = try XCTUnwrap(firstEvent(.disconnected, in: scenario))
    XCTAssertEqual(disconnected.time, Scenario.time(lastBefore + 12))
    // The tick that reports it comes within one tick of the crossing, with level 6.
    let tick = try XCTUnwrap(
      scenario.ticks.first { $0.events.contains { $0.kind == .disconnected } })
    let delay =
      Double(tick.snapshot.time.nanosecondsSinceEpoch - disconnected.time.nanosecondsSinceEpoch)
      * 1e-9
    XCTAssertLessThanOrEqual(delay, 2)
    let peer = try XCTUnwrap(tick.snapshot.peers.first)
    XCTAssertEqual(peer.state, .disconnected)
    XCTAssertEqual(peer.rx.level, .down)
    XCTAssertEqual(peer.tx.level, .down)
    XCTAssertEqual(tick.snapshot.hostRx, .down)
    let recovered = try XCTUnwrap(firstEvent(.recovered, in: scenario))
    XCTAssertEqual(recovered.previousState, .disconnected)
    XCTAssertEqual(recovered.time, Scenario.time(35))
    XCTAssertNil(firstEvent(.timeout, in: scenario))
    XCTAssertEqual(scenario.lastPeer?.state, .connected)
    XCTAssertEqual(scenario.lastPeer?.rx.level, .excellent)
    // The disconnect alert fired and resolved; the 750 packets the outage swallowed are the
    // outage's, not loss charged to the windows after it.
    let alerts = scenario.events.compactMap(\.alert)
    XCTAssertEqual(alerts.map(\.rule), ["peer_disconnected", "peer_disconnected"])
    XCTAssertEqual(alerts.map(\.state), [.firing, .resolved])
    let afterRecovery = try XCTUnwrap(scenario.ticks.first { $0.snapshot.time > recovered.time })
    XCTAssertEqual(afterRecovery.snapshot.peers.first?.rx.inputs?.lossRatio, 0)
    XCTAssertEqual(afterRecovery.snapshot.peers.first?.rx.level, .excellent)
  }

  func testSeventyFiveSecondSilenceTimesOut() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    scenario.call(seconds: 85..<90)
    let timeout = try XCTUnwrap(firstEvent(.timeout, in: scenario))
    XCTAssertEqual(timeout.time, Scenario.time(9.98 + 60))
    XCTAssertEqual(firstEvent(.recovered, in: scenario)?.previousState, .timeout)
    let kinds = scenario.events.filter { $0.alert == nil }.map(\.kind)
    XCTAssertEqual(kinds, [.connected, .interrupted, .disconnected, .timeout, .recovered])
  }

  func testRTCPKeepsASilentPeerAlive() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    // Silence suppression: no RTP for 20 s, but the peer's RTCP keeps coming.
    for second in stride(from: 11.0, to: 30.0, by: 2.5) {
      let rr = RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: [])
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: rr), at: second)
    }
    scenario.call(seconds: 30..<34)
    XCTAssertNil(firstEvent(.interrupted, in: scenario))
    XCTAssertNil(firstEvent(.disconnected, in: scenario))
    // Held from 4 s after the last RTP until the RTP came back.
    let held = try XCTUnwrap(firstEvent(.held, in: scenario))
    XCTAssertEqual(held.time, Scenario.time(9.98 + 4))
    let recovered = try XCTUnwrap(firstEvent(.recovered, in: scenario))
    XCTAssertEqual(recovered.previousState, .held)
    XCTAssertEqual(recovered.time, Scenario.time(30))
    let states = scenario.ticks.compactMap { $0.snapshot.peers.first?.state }
    XCTAssertEqual(Set(states), [.connected, .held])
    XCTAssertTrue(scenario.events.allSatisfy { $0.alert == nil })
  }

  func testByeEndsThePeerWithoutAlerts() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    let bye =
      RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: []) + RTCPBuilder.goodbye(ssrc: 0xAAAA)
    scenario.feed(
      PacketBuilder.frame(
        source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: bye), at: 10.01)
    scenario.idle(until: 100)
    let ended = try XCTUnwrap(firstEvent(.ended, in: scenario))
    XCTAssertEqual(ended.time, Scenario.time(10.01))
    XCTAssertEqual(scenario.lastPeer?.state, .ended)
    XCTAssertNil(firstEvent(.disconnected, in: scenario))
    XCTAssertTrue(scenario.events.allSatisfy { $0.alert == nil })
    XCTAssertEqual(scenario.last?.hostRx, .unknown)
  }

  func testSustainedBadQualityRaisesAndResolvesAnAlert() throws {
    var scenario = Scenario()
    let loss = exactRandomLoss(percent: 35)
    scenario.call(seconds: 0..<40, rxDrop: { $0 >= 500 && $0 < 1000 && loss($0) })
    let alerts = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_rx_quality_bad" }
    XCTAssertEqual(alerts.map(\.state), [.firing, .resolved])
    let firing = try XCTUnwrap(alerts.first)
    XCTAssertEqual(firing.labels, ["peer": Scenario.peer, "direction": "rx"])
    XCTAssertEqual(firing.severity, .warning)
    XCTAssertTrue(firing.summary.contains("rx quality"), firing.summary)
    XCTAssertEqual(alerts.last?.end.map { $0 > firing.start }, true)
  }

  /// Issue 40, item 2: 15 % loss, then a blackout. The quality alert does not resolve because
  /// the peer went silent (interrupted at 4 s, its level unknown): it stays firing while the
  /// disconnect alert takes over, and resolves only once media is back and measured well.
  func testAQualityAlertIsHeldThroughABlackoutNotResolved() throws {
    var scenario = Scenario()
    let loss = exactRandomLoss(percent: 35)
    scenario.call(seconds: 0..<20, rxDrop: { $0 >= 250 && loss($0) })
    scenario.idle(until: 40)
    scenario.call(seconds: 40..<60)
    let recovered = try XCTUnwrap(firstEvent(.recovered, in: scenario))
    let disconnected = try XCTUnwrap(firstEvent(.disconnected, in: scenario))
    let quality = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_rx_quality_bad" }
    XCTAssertEqual(quality.map(\.state), [.firing, .resolved])
    let fired = try XCTUnwrap(quality.first)
    XCTAssertLessThan(fired.start, Scenario.time(20))
    let resolvedAt = try XCTUnwrap(quality.last?.end)
    XCTAssertGreaterThan(resolvedAt, disconnected.time, "resolved during the silence")
    XCTAssertGreaterThanOrEqual(resolvedAt, recovered.time, "resolved before media came back")
    // The disconnect alert fired while the quality alert was still firing.
    let disconnect = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_disconnected" }
    XCTAssertEqual(disconnect.map(\.state), [.firing, .resolved])
  }

  /// A jitter spike of one second: the windows' own levels are bad for fewer than 3 ticks, the
  /// damped level holds the bad value for 3. The 3-tick rule must not fire on the held value.
  func testAHeldLevelRaisesNoAlert() throws {
    var random = SplitMix64(seed: 21)
    let delays = (0..<2000).map { _ in Double(random.next() % 250_000) / 1_000_000 }
    var scenario = Scenario()
    scenario.call(seconds: 0..<30, rxDelay: { (500..<550).contains($0) ? delays[$0] : 0 })
    let raw = scenario.ticks.compactMap { $0.snapshot.peers.first?.rx.rawLevel }
    let shown = scenario.ticks.compactMap { $0.snapshot.peers.first?.rx.level }
    XCTAssertLessThan(raw.filter { $0 >= .bad }.count, 3, "\(raw)")
    XCTAssertGreaterThanOrEqual(shown.filter { $0 >= .bad }.count, 3, "\(shown)")
    XCTAssertEqual(scenario.events.compactMap(\.alert), [])
  }

  func testAnAlertQuotesTheWindowsThatMadeItFire() throws {
    var scenario = Scenario()
    // 35 % loss from second 10 to 16, then clean: the pooled windows are bad for some ticks.
    let loss = exactRandomLoss(percent: 35)
    scenario.call(seconds: 0..<30, rxDrop: { (500..<800).contains($0) && loss($0) })
    let ticks = scenario.ticks.compactMap { tick in
      tick.snapshot.peers.first.map { (tick.snapshot.time, $0.rx) }
    }
    let alerts = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_rx_quality_bad" }
    XCTAssertEqual(alerts.map(\.state), [.firing, .resolved])
    let firing = try XCTUnwrap(alerts.first)
    // Fired at the third tick whose own level was bad or worse, resolved at the first whose
    // shown level was better than bad: the alert and the level shown tell one story.
    let bad = ticks.filter { $0.1.rawLevel >= .bad }.map(\.0)
    XCTAssertGreaterThanOrEqual(bad.count, 3)
    XCTAssertEqual(firing.start, bad[2])
    let firstShownBetter = try XCTUnwrap(ticks.first { $0.0 > bad[2] && $0.1.level < .bad })
    XCTAssertEqual(alerts.last?.end, firstShownBetter.0)
    for (time, rx) in ticks where time >= bad[2] && time < firstShownBetter.0 {
      XCTAssertGreaterThanOrEqual(rx.level, .bad, "shown bad on every tick the alert fired")
    }
    // The summary quotes the worst of the streak, not the tick it fired on.
    let streak = ticks.filter { $0.0 <= bad[2] && $0.0 >= bad[0] }.map(\.1)
    let worstLoss = try XCTUnwrap(streak.compactMap { $0.inputs?.lossRatio }.max())
    let worstLevel = try XCTUnwrap(streak.map(\.rawLevel).max())
    XCTAssertTrue(
      firing.summary.hasPrefix("peer \(Scenario.peer) rx quality \(worstLevel.name) over 3 ticks"),
      firing.summary)
    XCTAssertTrue(
      firing.summary.contains("loss up to \((worstLoss * 1000).rounded() / 10) %"),
      firing.summary)
  }

  func testCustomRuleOnJitter() throws {
    var scenario = Scenario {
      $0.alertRules = [
        AlertRule(
          name: "jittery", metric: .rxJitterMilliseconds, comparison: .greater, threshold: 10,
          forTicks: 2, severity: .info)
      ]
    }
    scenario.call(seconds: 0..<20, rxDelay: { $0 % 2 == 0 ? 0.03 : 0 })
    let alert = try XCTUnwrap(scenario.events.compactMap(\.alert).first)
    XCTAssertEqual(alert.rule, "jittery")
    XCTAssertEqual(alert.state, .firing)
    XCTAssertEqual(scenario.engine.firingAlerts.map(\.rule), ["jittery"])
  }
}

extension ConnectionScenarioTests {
  func testLinkDownIsDownAtOnce() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    let events = scenario.engine.linkChanged(interface: 0, up: false, at: Scenario.time(10.2))
    XCTAssertEqual(events.map(\.kind), [.linkDown])
    XCTAssertEqual(events.first?.peer, Scenario.peer)
    // The next tick, 2 s after the last packet: down, not merely interrupted.
    scenario.idle(until: 12)
    let peer = try XCTUnwrap(scenario.lastPeer)
    XCTAssertEqual(peer.state, .disconnected)
    XCTAssertEqual(peer.rx.level, .down)
    XCTAssertEqual(scenario.last?.hostRx, .down)
    // A repeated report changes nothing; the link coming back ends it.
    XCTAssertEqual(
      scenario.engine.linkChanged(interface: 0, up: false, at: Scenario.time(12.1)), [])
    XCTAssertEqual(
      scenario.engine.linkChanged(interface: 0, up: true, at: Scenario.time(12.5)).map(\.kind),
      [.linkUp])
    scenario.call(seconds: 13..<20)
    XCTAssertEqual(scenario.lastPeer?.state, .connected)
    XCTAssertEqual(scenario.lastPeer?.rx.level, .excellent)
    // Another interface's link says nothing about this peer.
    XCTAssertEqual(
      scenario.engine.linkChanged(interface: 3, up: false, at: Scenario.time(20.5)), [])
  }

  func testALinkStayingDownSaysSoOnceWithItsOwnTime() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    _ = scenario.engine.linkChanged(interface: 0, up: false, at: Scenario.time(10.2))
    scenario.idle(until: 40)
    // Down since the link went, not since the call connected, and the alert says so.
    let peer = try XCTUnwrap(scenario.lastPeer)
    XCTAssertEqual(peer.state, .disconnected)
    XCTAssertEqual(peer.stateSince, Scenario.time(10.2))
    let kinds = scenario.events.filter { $0.peer == Scenario.peer }.map(\.kind)
    XCTAssertFalse(kinds.contains(.interrupted), "\(kinds)")
    XCTAssertFalse(kinds.contains(.disconnected), "\(kinds)")
    let alerts = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_disconnected" }
    XCTAssertEqual(alerts.map(\.state), [.firing], "fires once and stays firing")
    XCTAssertTrue(
      alerts.first?.summary.hasSuffix("since \(Scenario.time(10.2).rfc3339)") ?? false,
      alerts.first?.summary ?? "")
    // The timeout still comes, 60 s after the last packet.
    scenario.idle(until: 72)
    XCTAssertEqual(scenario.lastPeer?.state, .timeout)
    XCTAssertEqual(scenario.events.filter { $0.kind == .timeout }.count, 1)
  }
}

extension ConnectionScenarioTests {
  func testNamedPeerGroupsReportUnderTheirName() throws {
    var scenario = Scenario {
      $0.peerGroups = [("sfu-eu", [NetworkPrefix("198.51.100.0/24")].compactMap { $0 })]
    }
    scenario.call(seconds: 0..<6)
    let peers = try XCTUnwrap(scenario.last?.peers)
    XCTAssertEqual(peers.map(\.peer), ["sfu-eu"])
    XCTAssertEqual(peers.first?.rx.level, .excellent)
    XCTAssertEqual(scenario.events.first?.peer, "sfu-eu")
  }

  /// Issue 37: a stream's peer name is made once and kept; a reload that groups its address
  /// names it by its group from the next tick, and one that ungroups it by its address again.
  func testAReloadRenamesTheStreamsOfAGroup() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<6)
    let address = try XCTUnwrap(scenario.last?.peers.first?.peer)
    var grouped = scenario.engine.scorer.configuration
    grouped.peerGroups = [("sfu-eu", [NetworkPrefix("\(address)/32")].compactMap { $0 })]
    scenario.engine.reconfigure(grouped)
    scenario.call(seconds: 6..<10)
    XCTAssertEqual(scenario.last?.peers.map(\.peer), ["sfu-eu"])
    grouped.peerGroups = []
    scenario.engine.reconfigure(grouped)
    scenario.call(seconds: 10..<14)
    XCTAssertEqual(scenario.last?.peers.map(\.peer), [address])
  }
}

extension ConnectionScenarioTests {
  /// A peer silent for its timeout and the grace (60 s) after it is forgotten with its streams,
  /// its alerts resolved; if it comes back it is a new peer.
  func testLongSilentPeersAreForgotten() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<10)
    scenario.idle(until: 380)
    XCTAssertEqual(scenario.last?.peers.count, 0)
    XCTAssertEqual(scenario.engine.analyzer.captureCounters.forgottenStreams, 2)
    XCTAssertEqual(scenario.engine.firingAlerts, [])
    let resolved = scenario.events.compactMap(\.alert).filter { $0.state == .resolved }.map(\.rule)
    XCTAssertEqual(Set(resolved), ["peer_disconnected", "peer_timeout"])
    scenario.call(seconds: 390..<396)
    XCTAssertEqual(scenario.lastPeer?.state, .connected)
    XCTAssertEqual(scenario.lastPeer?.rx.level, .excellent)
  }
}
