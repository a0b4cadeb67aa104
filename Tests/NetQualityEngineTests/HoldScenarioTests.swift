import NetQualityCore
import NetQualitySynth
import XCTest

/// Calls on hold: the peer's RTP stops while its RTCP goes on at the randomised RFC 3550
/// interval (uniform over [0.5, 1.5] × 5 s, section 6.3.1).
final class HoldScenarioTests: XCTestCase {
  /// The peer's RTCP times over `range`: intervals drawn from [2.5, 7.5] s.
  func rtcpTimes(_ range: Range<Double>, seed: UInt64) -> [Double] {
    var random = SplitMix64(seed: seed)
    var times: [Double] = []
    var time = range.lowerBound + 1
    while time < range.upperBound {
      times.append(time)
      time += 2.5 + Double(random.next() % 5_000_001) / 1_000_000
    }
    return times
  }

  /// Plays the call over `media` (RTP both ways, the tap at the host) and the peer's RTCP at
  /// `rtcp`, in time order, then idles to `end`. Each direction's sequence numbers run on
  /// across the pauses, as a held call's do. The peer's receiver reports carry a block about
  /// our stream as a receiver counts it (RFC 3550 A.3): the highest sequence number of what
  /// reached it (our packets sent up to `pathSeconds` before the report), and of those lost
  /// downstream of the tap, `lostDownstream(sequence)`, the cumulative count.
  func play(
    media: [Range<Double>], rtcp: [Double], until end: Double,
    lostDownstream: (Int) -> Bool = { _ in false }
  ) -> Scenario {
    var scenario = Scenario()
    var cursor = 0.0
    // Sequence numbers skip no packet over the pauses: range i starts where range i-1 ended.
    var firstSequences: [Int] = []
    var sent = 0
    for range in media {
      firstSequences.append(sent - Int((range.lowerBound / 0.02).rounded()))
      sent += Int(((range.upperBound - range.lowerBound) / 0.02).rounded())
    }
    func rtpUntil(_ time: Double, in scenario: inout Scenario) {
      // RTP packets are 20 ms apart from 0: play the ranges' packets before `time`.
      let boundary = (time / 0.02).rounded(.up) * 0.02
      for (range, first) in zip(media, firstSequences)
      where range.lowerBound < boundary && range.upperBound > cursor {
        let from = max(range.lowerBound, cursor)
        let to = min(range.upperBound, boundary)
        if to > from { scenario.call(seconds: from..<to, firstSequence: first) }
      }
      cursor = max(cursor, boundary)
    }
    var previous = (highest: -1, lost: 0)
    for time in rtcp.sorted() where time < end {
      rtpUntil(time, in: &scenario)
      let highest = Self.packetsSent(media, before: time - Self.pathSeconds) - 1
      let lost = highest < 0 ? 0 : (0...highest).filter(lostDownstream).count
      var blocks: [RTCPReportBlock] = []
      if highest >= 0 {
        // RFC 3550 A.3: the fraction lost since the previous report, 0 when none expected.
        let expected = highest - previous.highest
        let fraction = expected > 0 ? max(0, lost - previous.lost) * 256 / expected : 0
        blocks.append(
          RTCPReportBlock(
            reporterSSRC: 0xAAAA, sourceSSRC: 0xBBBB, fractionLost: UInt8(min(255, fraction)),
            cumulativeLost: Int32(lost), extendedHighestSequence: UInt32(highest), jitter: 8,
            lastSR: 0, delaySinceLastSR: 0))
        previous = (highest, lost)
      }
      let report = RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: blocks)
      scenario.feed(
        PacketBuilder.frame(
          source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: report), at: time)
    }
    rtpUntil(end, in: &scenario)
    scenario.idle(until: end)
    return scenario
  }

  /// How long our packets take to the peer and its report back to the tap.
  static let pathSeconds = 0.04

  /// Our packets (20 ms apart from each range's start) sent before `time`.
  static func packetsSent(_ media: [Range<Double>], before time: Double) -> Int {
    media.reduce(0) { count, range in
      let until = min(range.upperBound, time)
      guard until > range.lowerBound else { return count }
      return count + Int(((until - range.lowerBound) / 0.02).rounded(.up))
    }
  }

  func kinds(_ scenario: Scenario) -> [EngineEvent.Kind] {
    scenario.events.filter { $0.alert == nil }.map(\.kind)
  }

  func testFortySecondsOnHoldIsHeldNotInterrupted() throws {
    for seed in UInt64(1)...20 {
      // Talk 30 s, hold 40 s (RTCP only), talk again 10 s.
      let rtcp = rtcpTimes(0..<80, seed: seed)
      let scenario = play(media: [0..<30, 70..<80], rtcp: rtcp, until: 80.5)
      XCTAssertEqual(kinds(scenario), [.connected, .held, .recovered], "seed \(seed)")
      let held = try XCTUnwrap(scenario.events.first { $0.kind == .held })
      XCTAssertEqual(held.time, Scenario.time(29.98 + 4), "4 s after the last RTP")
      let recovered = try XCTUnwrap(scenario.events.first { $0.kind == .recovered })
      XCTAssertEqual(recovered.previousState, .held)
      XCTAssertEqual(recovered.time, Scenario.time(70))
      XCTAssertTrue(scenario.events.allSatisfy { $0.alert == nil }, "seed \(seed)")
      let states = scenario.ticks.compactMap { $0.snapshot.peers.first?.state }
      // Held is known from the first RTCP a second or more after the media stopped (and 4 s of
      // silence) to the
      // tick at 70 s, which closes the window before the RTP came back.
      let firstReport = try XCTUnwrap(rtcp.first { $0 >= 29.98 + 1 })
      let heldFrom = (max(33.98, firstReport) / 2).rounded(.up) * 2
      XCTAssertEqual(
        states.filter { $0 == .held }.count, Int((70 - heldFrom) / 2) + 1, "seed \(seed)")
      XCTAssertEqual(states.filter { $0 != .held && $0 != .connected }, [], "seed \(seed)")
    }
  }

  /// tx on hold: while we send nothing, nothing is judged, however recent the peer's last
  /// report; after the resume, the first report that counts our new packets scores them, at
  /// the tick after it. Our packets lose every 100th downstream of the tap (1 %).
  func testTxIsUnknownThroughAHoldAndScoredByTheFirstReportAfterIt() throws {
    let lostDownstream: (Int) -> Bool = { $0 % 100 == 99 }
    let media = [0.0..<30.0, 70.0..<80.0]
    let minimumPackets = QualityModel().minimumPackets
    for seed in UInt64(1)...20 {
      let rtcp = rtcpTimes(0..<80, seed: seed)
      let scenario = play(media: media, rtcp: rtcp, until: 80.5, lostDownstream: lostDownstream)
      func tx(at seconds: Double) throws -> DirectionSnapshot {
        let index = Int((seconds / 2).rounded()) - 1
        return try XCTUnwrap(scenario.peer(at: index)?.tx, "seed \(seed), tick \(seconds)")
      }
      // Talking: the first report (1 s) and each after it give a level at every tick.
      for second in stride(from: 2.0, through: 30, by: 2) {
        XCTAssertEqual(try tx(at: second).level, .excellent, "seed \(seed), tick \(second)")
      }
      // The 20 ticks whose windows lie in the hold, every held one among them.
      for second in stride(from: 32.0, through: 70, by: 2) {
        XCTAssertEqual(try tx(at: second).level, .unknown, "seed \(seed), tick \(second)")
      }
      for tick in scenario.ticks {
        guard let peer = tick.snapshot.peers.first, peer.state == .held else { continue }
        XCTAssertEqual(peer.tx.level, .unknown, "seed \(seed), held at \(tick.snapshot.time)")
      }
      // The first report after the resume that counts enough new packets to judge (one a
      // few packets after the resume counts too few: the model's minimum).
      let lastOnHold = try XCTUnwrap(rtcp.last { $0 < 70 })
      var previous = Self.packetsSent(media, before: lastOnHold - Self.pathSeconds) - 1
      var scoring: (time: Double, from: Int, to: Int)?
      for time in rtcp where time > 70 && time < 80 {
        let highest = Self.packetsSent(media, before: time - Self.pathSeconds) - 1
        if highest - previous >= minimumPackets {
          scoring = (time, previous + 1, highest)
          break
        }
        previous = highest
      }
      let report = try XCTUnwrap(scoring, "seed \(seed): no report after the resume")
      // The tick that closes the report's window (a report at a tick's time is in the next).
      let scoredAt = ((report.time / 2).rounded(.down) + 1) * 2
      for second in stride(from: 72.0, to: scoredAt, by: 2) {
        XCTAssertEqual(try tx(at: second).level, .unknown, "seed \(seed), tick \(second)")
      }
      let scored = try tx(at: scoredAt)
      XCTAssertEqual(scored.level, .excellent, "seed \(seed), tick \(scoredAt)")
      XCTAssertEqual(scored.inputs?.packets, Int64(report.to - report.from + 1), "seed \(seed)")
      // Lost over covered, the covered being our packets report.from ... report.to.
      let lost = (report.from...report.to).filter(lostDownstream).count
      XCTAssertEqual(
        try XCTUnwrap(scored.inputs?.lossRatio), Double(lost) / Double(report.to - report.from + 1),
        accuracy: 1e-12, "seed \(seed)")
    }
  }

  func testABlackoutStillDisconnectsTwelveSecondsAfterTheLastPacket() throws {
    for seed in UInt64(1)...20 {
      // RTP and RTCP both stop at 30 s.
      let rtcp = rtcpTimes(0..<30, seed: seed)
      let scenario = play(media: [0..<30], rtcp: rtcp, until: 50)
      let last = max(29.98, rtcp.last ?? 0)
      let disconnected = try XCTUnwrap(scenario.events.first { $0.kind == .disconnected })
      XCTAssertEqual(disconnected.time, Scenario.time(last + 12), "seed \(seed)")
      XCTAssertEqual(kinds(scenario), [.connected, .interrupted, .disconnected], "seed \(seed)")
      // Interrupted when the media had been silent 4 s and the next report was overdue.
      let interrupted = try XCTUnwrap(scenario.events.first { $0.kind == .interrupted })
      XCTAssertGreaterThanOrEqual(interrupted.time, Scenario.time(29.98 + 4))
      XCTAssertGreaterThanOrEqual(
        interrupted.time, min(Scenario.time((rtcp.last ?? 0) + 7.5), disconnected.time))
      XCTAssertLessThanOrEqual(interrupted.time, disconnected.time)
    }
  }

  /// A report that slipped through with the last media before a cut is no sign of a hold.
  func testABlackoutJustAfterAReportIsNeverHeld() throws {
    let rtcp = Array(stride(from: 0.5, to: 30, by: 5)) + [30.03]
    let scenario = play(media: [0..<30], rtcp: rtcp, until: 50)
    XCTAssertEqual(kinds(scenario), [.connected, .interrupted, .disconnected])
    XCTAssertEqual(
      scenario.events.first { $0.kind == .disconnected }?.time, Scenario.time(30.03 + 12))
    XCTAssertFalse(scenario.ticks.contains { $0.snapshot.peers.first?.state == .held })
  }

  func testAHoldWhoseRTCPStopsTooIsInterruptedThenDisconnected() throws {
    // RTCP every 5 s until 50 s; RTP until 30 s.
    let rtcp = Array(stride(from: 1.0, to: 50, by: 5))
    let scenario = play(media: [0..<30], rtcp: rtcp, until: 80)
    XCTAssertEqual(kinds(scenario), [.connected, .held, .interrupted, .disconnected])
    let lastRTCP = try XCTUnwrap(rtcp.last)
    // A 5 s cadence allows 10 s of silence; disconnected after 12 s of silence of everything.
    XCTAssertEqual(
      scenario.events.first { $0.kind == .interrupted }?.time, Scenario.time(lastRTCP + 10))
    XCTAssertEqual(
      scenario.events.first { $0.kind == .disconnected }?.time, Scenario.time(lastRTCP + 12))
  }

  func testAReceiveOnlyPeerSendingOnlyRTCPIsConnectedNotHeld() throws {
    var scenario = Scenario()
    // We send to the peer for 40 s; it only answers with RTCP every 5 s.
    for second in stride(from: 0.0, to: 40, by: 1) {
      scenario.audio(
        from: Scenario.local, to: Scenario.remote, ssrc: 0xBBBB, seconds: second..<second + 1)
      if Int(second) % 5 == 1 {
        let report = RTCPBuilder.receiverReport(ssrc: 0xAAAA, blocks: [])
        scenario.feed(
          PacketBuilder.frame(
            source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: report),
          at: second + 0.99)
      }
    }
    XCTAssertEqual(kinds(scenario), [.connected])
    let states = scenario.ticks.compactMap { $0.snapshot.peers.first?.state }
    XCTAssertEqual(Set(states), [.connected])
  }

  func testRTCPSendersAreForgottenWithTheStreams() throws {
    var scenario = Scenario()
    // RTCP-looking UDP from 500 addresses that never send media, then nothing.
    for host in 0..<500 {
      let source = Endpoint(
        address: IPAddress(ipv4: 203, 0, UInt8(host / 250), UInt8(1 + host % 250)), port: 5_001)
      let report = RTCPBuilder.receiverReport(ssrc: UInt32(host), blocks: [])
      scenario.feed(
        PacketBuilder.frame(source: source, destination: Scenario.localRTCP, payload: report),
        at: 1 + Double(host) / 1000)
    }
    XCTAssertEqual(scenario.engine.analyzer.addressesWithFacts, 500)
    // Timeout (60 s) and the grace after it (60 s): forgotten, memory back to nothing.
    scenario.idle(until: 400)
    XCTAssertEqual(scenario.engine.analyzer.addressesWithFacts, 0)
  }

  func testWithoutRTCPSilenceIsInterruptedAtFourSeconds() throws {
    let scenario = play(media: [0..<30], rtcp: [], until: 40)
    XCTAssertEqual(kinds(scenario), [.connected, .interrupted])
    XCTAssertEqual(
      scenario.events.first { $0.kind == .interrupted }?.time, Scenario.time(29.98 + 4))
  }
}
