import NetQualityCore
import NetQualitySynth
import XCTest

/// A peer known only by our probes to its reflector: scored in both directions, alive while it
/// answers, disconnected 12 s after its last answer, never gone in between.
final class ProbePeerTests: XCTestCase {
  func testAProbeOnlyPeerIsScoredInBothDirections() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    scenario.probes(
      seconds: 0..<20, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { _ in 0.015 }, backwardDelay: { _ in 0.025 })
    let peers = scenario.probePeers
    XCTAssertEqual(peers.count, 10)
    XCTAssertFalse(peers.contains { $0 == nil }, "present at every tick")
    let peer = try XCTUnwrap(peers[5])
    XCTAssertEqual(peer.state, .connected)
    XCTAssertEqual(peer.sources, [.probe])
    XCTAssertEqual(peer.streams, 0)
    XCTAssertEqual(peer.rx.level, .excellent)
    XCTAssertEqual(peer.tx.level, .excellent)
    XCTAssertEqual(peer.rx.source, .probe)
    XCTAssertEqual(peer.tx.source, .probe)
    XCTAssertEqual(peer.roundTripSource, .probe)
    // The reflector's 50 µs turnaround is taken out: 15 + 25 ms.
    XCTAssertEqual(try XCTUnwrap(peer.roundTripMilliseconds), 40, accuracy: 0.001)
    let probe = try XCTUnwrap(peer.probe)
    XCTAssertEqual(probe.targets, [Scenario.reflector])
    XCTAssertEqual(probe.window.received, 100)
    XCTAssertEqual(probe.window.forwardLost + probe.window.backwardLost, 0)
    // Clocks not synchronised: no one-way delay, whatever T2 - T1 says.
    XCTAssertEqual(probe.window.forwardDelay.count, 0)
    XCTAssertEqual(probe.histograms.roundTrip.count, probe.total.received)
  }

  func testLossIsToldApartByDirection() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    let truth = scenario.probes(
      seconds: 0..<20, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { $0 % 50 == 7 || ($0 >= 300 && $0 < 305) ? nil : 0.02 },
      backwardDelay: { $0 % 40 == 3 || ($0 >= 600 && $0 < 603) ? nil : 0.02 })
    scenario.finishProbes(until: 24)
    XCTAssertEqual(truth.sent, 1000)
    XCTAssertEqual(truth.forwardDropped, 20 + 5)
    XCTAssertGreaterThan(truth.backwardDropped, 20)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.sent, Int64(truth.sent))
    XCTAssertEqual(last.total.forwardLost, Int64(truth.forwardDropped))
    XCTAssertEqual(last.total.backwardLost, Int64(truth.backwardDropped))
    XCTAssertEqual(
      last.total.received, Int64(truth.sent - truth.forwardDropped - truth.backwardDropped))
    XCTAssertEqual(last.pendingLost, 0)
    // Windows add up to the totals.
    let windows = scenario.probePeers.compactMap { $0?.probe?.window }
    XCTAssertEqual(windows.map(\.forwardLost).reduce(0, +), last.total.forwardLost)
    XCTAssertEqual(windows.map(\.backwardLost).reduce(0, +), last.total.backwardLost)
  }

  /// Jitter larger than the interval reorders probes on the way to the reflector, which numbers
  /// them in arrival order: forward loss next to an overtaken probe is still forward loss (it
  /// used to be read from the numbers of consecutive probes, and half of it came out backward).
  func testLossIsToldApartWhenTheReflectorSeesProbesOutOfOrder() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    var random = SplitMix64(seed: 5)
    var forward: [Double?] = []
    var backward: [Double?] = []
    for _ in 0..<2000 {
      let delay = 0.05 + (Double(random.next() % 20_001) / 1_000_000 - 0.01)
      forward.append(random.chance(percent: 2) ? nil : delay)
      backward.append(random.chance(percent: 1) ? nil : 0.01)
    }
    let truth = scenario.probes(
      seconds: 0..<20, rate: 100, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { forward[$0] }, backwardDelay: { backward[$0] })
    scenario.finishProbes(until: 24)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertGreaterThan(last.total.reordered + Int64(truth.forwardDropped), 0)
    XCTAssertGreaterThan(truth.forwardDropped, 20)
    XCTAssertEqual(last.total.forwardLost, Int64(truth.forwardDropped))
    XCTAssertEqual(last.total.backwardLost, Int64(truth.backwardDropped))
    XCTAssertEqual(last.pendingLost, 0)
  }

  func testForwardLossLowersOnlyTheTransmitDirection() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    scenario.probes(
      seconds: 0..<20, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { $0 % 10 == 4 ? nil : 0.02 })
    let peer = try XCTUnwrap(scenario.probePeers[6])
    XCTAssertEqual(try XCTUnwrap(peer.tx.inputs?.lossRatio), 0.1, accuracy: 0.011)
    XCTAssertEqual(peer.rx.inputs?.lossRatio, 0)
    XCTAssertGreaterThan(peer.tx.rawLevel, peer.rx.rawLevel)
    XCTAssertEqual(peer.rx.rawLevel, .excellent)
  }

  func testSilenceDisconnectsAfterTwelveSecondsAndTheAnswersRecover() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    // Nothing gets through from 10 s to 25 s (a 100 % drop on the path).
    let cut = { (index: Int) -> Double? in index >= 500 && index < 1250 ? nil : 0.02 }
    scenario.probes(
      seconds: 0..<40, firstReflectorSequence: &reflectorSequence, forwardDelay: cut)
    let events = scenario.ticks.flatMap(\.events).filter { $0.peer == Scenario.peer }
    let lastAnswer = 9.98 + 0.04 + 0.000_05
    let disconnected = try XCTUnwrap(events.first { $0.kind == .disconnected })
    XCTAssertEqual(
      disconnected.time.seconds(since: Scenario.time(lastAnswer)), 12, accuracy: 0.001)
    let recovered = try XCTUnwrap(events.first { $0.kind == .recovered })
    XCTAssertEqual(recovered.previousState, .disconnected)
    XCTAssertEqual(recovered.time.seconds(since: Scenario.time(25.04)), 0, accuracy: 0.001)
    XCTAssertEqual(
      events.map(\.kind).filter {
        [.connected, .interrupted, .disconnected, .recovered].contains($0)
      },
      [.connected, .interrupted, .disconnected, .recovered])
    let peers = scenario.probePeers
    XCTAssertFalse(peers.contains { $0 == nil }, "the peer never vanishes")
    // The tick at 24 s: down both ways.
    let down = try XCTUnwrap(peers[11])
    XCTAssertEqual(down.state, .disconnected)
    XCTAssertEqual(down.rx.level, .down)
    XCTAssertEqual(down.tx.level, .down)
    // Lost while cut, and nothing answered: the direction is unknown until the next answer,
    // which tells that none of them reached the reflector.
    XCTAssertGreaterThan(down.probe?.pendingLost ?? 0, 0)
    let last = try XCTUnwrap(peers.last??.probe)
    XCTAssertEqual(last.total.forwardLost, 750)
    XCTAssertEqual(last.total.backwardLost, 0)
    XCTAssertEqual(try XCTUnwrap(peers.last??.state), .connected)
  }

  /// 1.2 s more for 50 probes (a queue that built up) on the way back, then on the way there:
  /// their answers come after the deadline and the reflector's turnaround is 50 µs, so the
  /// path delayed them, lost the way whose transit grew (T4 - T3 back, T2 - T1 there). Back:
  /// those late before the next answer in time is settled are booked by their transit, the
  /// last 12 after it, by the gaps their numbers had left. There: the reflector gets them
  /// late and numbers them late, so no gap tells.
  func testAnswersThePathDelayedPastTheDeadlineAreLostTheWayThatDelayedThem() throws {
    for backward in [true, false] {
      var scenario = Scenario()
      var reflectorSequence = 0
      let delay = { (index: Int) -> Double? in (500..<550).contains(index) ? 1.22 : 0.02 }
      scenario.probes(
        seconds: 0..<20, firstReflectorSequence: &reflectorSequence,
        forwardDelay: backward ? { _ in 0.02 } : delay,
        backwardDelay: backward ? delay : { _ in 0.02 })
      scenario.finishProbes(until: 24)
      let last = try XCTUnwrap(scenario.probePeers.last??.probe)
      XCTAssertEqual(last.total.lateDelayed, 50)
      XCTAssertEqual(last.total.lateStalled, 0)
      XCTAssertEqual(last.total.backwardLost, backward ? 50 : 0)
      XCTAssertEqual(last.total.forwardLost, backward ? 0 : 50)
    }
  }

  /// A path cut for 15 s: its 750 lost probes are the outage's, which the connection state
  /// reports. Scored in the windows after it (pooled over 3), they made tx very bad for three
  /// ticks after the recovery and fired `peer_tx_quality_bad`.
  func testAnOutageRaisesNoQualityAlertAfterItsRecovery() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    let cut = { (index: Int) -> Double? in index >= 500 && index < 1250 ? nil : 0.02 }
    scenario.probes(
      seconds: 0..<40, firstReflectorSequence: &reflectorSequence, forwardDelay: cut)
    let events = scenario.events.filter { $0.peer == Scenario.peer }
    let recovered = try XCTUnwrap(events.first { $0.kind == .recovered })
    XCTAssertFalse(
      events.contains { $0.kind == .alertFiring && $0.alert?.rule != "peer_disconnected" },
      "\(events.compactMap(\.alert?.summary))")
    XCTAssertFalse(events.contains { $0.kind == .alertFiring && $0.time >= recovered.time })
    let recoveryTick = try XCTUnwrap(
      scenario.ticks.firstIndex { $0.events.contains { $0.kind == .recovered } })
    for peer in scenario.probePeers.dropFirst(recoveryTick) {
      XCTAssertEqual(peer?.tx.rawLevel, .excellent)
      XCTAssertEqual(peer?.rx.rawLevel, .excellent)
    }
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.forwardLost, 750)
    XCTAssertEqual(last.total.outageForwardLost, 750)
  }

  /// A cut shorter than the interruption interval (4 s) is no outage of the connection state:
  /// nothing else reports it, and its loss is scored as loss.
  func testACutShorterThanTheInterruptionIsScoredAsLoss() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    // 2 s without an answer from 10 s: 100 probes lost on the way there.
    let cut = { (index: Int) -> Double? in index >= 500 && index < 600 ? nil : 0.02 }
    scenario.probes(
      seconds: 0..<30, firstReflectorSequence: &reflectorSequence, forwardDelay: cut)
    let events = scenario.events.filter { $0.peer == Scenario.peer }
    XCTAssertFalse(events.contains { $0.kind == .interrupted })
    let worst = scenario.probePeers.compactMap { $0?.tx.rawLevel }.max()
    XCTAssertEqual(worst, .veryBad)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.forwardLost, 100)
    XCTAssertEqual(last.total.outageForwardLost, 0)
  }

  func testATargetThatNeverAnswersIsNeverConnected() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    scenario.probes(
      seconds: 0..<16, firstReflectorSequence: &reflectorSequence, forwardDelay: { _ in nil })
    let events = scenario.ticks.flatMap(\.events).filter { $0.peer == Scenario.peer }
    XCTAssertFalse(events.contains { $0.kind == .connected })
    let disconnected = try XCTUnwrap(events.first { $0.kind == .disconnected })
    XCTAssertEqual(disconnected.time, Scenario.time(12))
    let peer = try XCTUnwrap(scenario.probePeers.last ?? nil)
    XCTAssertEqual(peer.state, .disconnected)
    XCTAssertEqual(peer.rx.level, .down)
  }

  func testJitterAndDelayVariationBelongToTheirDirection() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    var random = SplitMix64(seed: 11)
    var forward: [Double] = []
    for _ in 0..<1000 {
      forward.append(0.05 + (Double(random.next() % 20_001) / 1_000_000 - 0.01))
    }
    scenario.probes(
      seconds: 0..<20, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { forward[$0] }, backwardDelay: { _ in 0.02 })
    let peer = try XCTUnwrap(scenario.probePeers[8])
    let probe = try XCTUnwrap(peer.probe)
    XCTAssertGreaterThan(try XCTUnwrap(probe.forwardJitterMilliseconds), 3)
    XCTAssertLessThan(try XCTUnwrap(probe.backwardJitterMilliseconds), 0.01)
    // Uniform ±10 ms: consecutive differences average 20/3 ms.
    XCTAssertEqual(
      try XCTUnwrap(probe.total.forwardDelayVariation.meanSeconds) * 1000, 20.0 / 3, accuracy: 0.5)
    XCTAssertLessThan(try XCTUnwrap(probe.total.backwardDelayVariation.meanSeconds), 1e-6)
    XCTAssertEqual(peer.tx.inputs?.jitterMilliseconds, probe.forwardJitterMilliseconds)
    XCTAssertEqual(peer.rx.inputs?.jitterMilliseconds, probe.backwardJitterMilliseconds)
    // Mean round trip: 50 + 20 ms.
    XCTAssertEqual(
      try XCTUnwrap(probe.total.roundTrip.meanSeconds) * 1000, 70, accuracy: 0.5)
  }

  func testOneWayDelayNeedsSynchronisedClocks() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    scenario.probes(
      seconds: 0..<6, firstReflectorSequence: &reflectorSequence, reflectorOffset: 0,
      synchronized: true, forwardDelay: { _ in 0.03 }, backwardDelay: { _ in 0.01 })
    let probe = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertTrue(probe.clocksSynchronized)
    XCTAssertEqual(try XCTUnwrap(probe.total.forwardDelay.meanSeconds), 0.03, accuracy: 1e-6)
    XCTAssertEqual(try XCTUnwrap(probe.total.backwardDelay.meanSeconds), 0.01, accuracy: 1e-6)
    XCTAssertEqual(probe.histograms.forwardDelay.count, probe.total.received)
  }

  func testAReflectorRestartIsNotCountedAsLoss() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    scenario.probes(seconds: 0..<4, firstReflectorSequence: &reflectorSequence)
    // The reflector restarts: its count begins again at 0, and two probes are lost forward.
    reflectorSequence = 0
    scenario.probes(
      seconds: 4..<8, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { $0 < 202 ? nil : 0.02 })
    scenario.finishProbes(until: 10)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.forwardLost, 2)
    XCTAssertEqual(last.total.backwardLost, 0)
  }

  func testAPeerWithRTPAndProbesShowsBothSources() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    for chunk in stride(from: 0.0, to: 20, by: 2) {
      scenario.audio(seconds: chunk..<(chunk + 2))
      scenario.probes(
        seconds: chunk..<(chunk + 2), firstReflectorSequence: &reflectorSequence,
        forwardDelay: { $0 % 5 == 0 ? nil : 0.02 })
    }
    let peer = try XCTUnwrap(scenario.probePeers[7])
    XCTAssertEqual(peer.sources, [.rtp, .probe])
    // rx: the clean RTP and the clean backward probes; tx: only the probes know (20 % lost).
    XCTAssertEqual(peer.rx.rawLevel, .excellent)
    XCTAssertEqual(peer.tx.source, .probe)
    XCTAssertGreaterThanOrEqual(peer.tx.rawLevel, .bad)
  }

  func testTheAgentsOwnProbeTrafficIsNotTakenForRTP() throws {
    // Probe packets numbered from 2^31 have RTP's version bits: 300 of them to the reflector
    // would make a stream without the filter.
    func stampFrames(_ scenario: inout Scenario) {
      for index in 0..<300 {
        var payload = [UInt8](repeating: 0, count: 44)
        let sequence = UInt32(0x8000_0000) + UInt32(index)
        withUnsafeBytes(of: sequence.bigEndian) { payload.replaceSubrange(0..<4, with: $0) }
        scenario.feed(
          PacketBuilder.frame(
            source: Scenario.local, destination: Scenario.reflector, payload: payload),
          at: Double(index) * 0.02)
      }
      scenario.idle(until: 8)
    }
    var unfiltered = Scenario()
    stampFrames(&unfiltered)
    XCTAssertEqual(unfiltered.ticks.last?.snapshot.streams.count, 1, "the filter is needed")
    var filtered = Scenario {
      $0.analyzer.probeTraffic = ProbeTrafficFilter(endpoints: [Scenario.reflector])
    }
    stampFrames(&filtered)
    XCTAssertEqual(filtered.ticks.last?.snapshot.streams.count, 0)
    XCTAssertEqual(filtered.engine.analyzer.report().capture.probePackets, 300)
  }
}

/// A spoofer sends unauthenticated STAMP packets with our address and port (issue 39): the
/// reflector numbers them with our probes and answers them to us.
final class SpoofedProbeTests: XCTestCase {
  func testSpoofedAnswersAreCountedAndTakeNoLossBackward() throws {
    var scenario = Scenario()
    var reflectorSequence = 0
    // 25 spoofed packets a second beside our 50 probes, which the path drops in both ways
    // (one in 4 forward, one in 25 backward: an impairment, or the spoofer's doing).
    let truth = scenario.probes(
      seconds: 0..<20, firstReflectorSequence: &reflectorSequence,
      forwardDelay: { $0 % 4 == 1 ? nil : 0.02 }, backwardDelay: { $0 % 25 == 3 ? nil : 0.02 },
      spoofedPerSecond: 25)
    scenario.finishProbes(until: 36)
    XCTAssertEqual(truth.spoofedAnswered, 500)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.unexpectedAnswers, Int64(truth.spoofedAnswered))
    // The spoofed answers came: their reflector numbers are no gaps, so the loss is split as
    // the path dropped it (before: each spoofed number between two of our answers read as a
    // probe of ours lost on the way back).
    XCTAssertEqual(last.total.forwardLost, Int64(truth.forwardDropped))
    XCTAssertEqual(last.total.backwardLost, Int64(truth.backwardDropped))
    XCTAssertEqual(truth.forwardDropped, 250)
    XCTAssertGreaterThan(truth.backwardDropped, 0)
    // Flagged while spoofed answers came within the scoring windows, and the pages say so.
    let flagged = scenario.probePeers.compactMap { $0?.probe?.possiblySpoofed }
    XCTAssertEqual(flagged.first, true)
    XCTAssertEqual(last.possiblySpoofed, false, "no spoofed answer in the last windows")
    let firing = scenario.events.filter {
      $0.kind == .alertFiring && $0.alert?.rule == "peer_tx_quality_bad"
    }
    XCTAssertEqual(firing.count, 1, "\(scenario.events.map(\.kind))")
    XCTAssertTrue(
      firing.first?.alert?.summary.contains("possibly spoofed") == true,
      firing.first?.alert?.summary ?? "")
  }
}
