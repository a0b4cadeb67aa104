import NetQualityCore
import NetQualitySynth
import XCTest

/// Issue 25: a steady impairment near a band's edge is one alert for its whole duration, the
/// level shown and the alert agree on every tick once it fires, and a real recovery ends both
/// within seconds. Random loss (each packet dropped with the given probability, as nftables'
/// `numgen random mod 100 < N` drops) on a 10-minute G.711 call.
final class AlertHysteresisTests: XCTestCase {
  /// Packet indices dropped with probability `percent` %, from `seed`.
  func randomLoss(percent: Int, seed: UInt64) -> Set<Int> {
    var random = SplitMix64(seed: seed)
    var dropped = Set<Int>()
    for index in 0..<30_000 where random.next() % 10_000 < UInt64(percent * 100) {
      dropped.insert(index)
    }
    return dropped
  }

  func play(
    percent: Int, seed: UInt64, during phase: Range<Double> = 0..<600, seconds: Double = 600
  )
    -> Scenario
  {
    let dropped = randomLoss(percent: percent, seed: seed)
    var scenario = Scenario()
    scenario.call(
      seconds: 0..<seconds,
      rxDrop: { phase.contains(Double($0) * 0.02) && dropped.contains($0) })
    return scenario
  }

  /// One alert, firing from its start to the end of the call, and the level shown bad or worse
  /// on every tick it fired — at 12 % (a third of the windows bad, the rest poor) and at 15 %
  /// (some windows very bad, some poor).
  func testASteadyImpairmentAtABandsEdgeIsOneAlertAgreeingWithTheLevelShown() throws {
    for (percent, seed) in [(12, UInt64(1)), (12, 2), (15, 3)] {
      let scenario = play(percent: percent, seed: seed)
      let ticks = scenario.ticks.compactMap { tick in
        tick.snapshot.peers.first.map { (tick.snapshot.time, $0.rx) }
      }
      let raw = ticks.map(\.1.rawLevel)
      XCTAssertGreaterThan(raw.filter { $0 < .bad }.count, 10, "\(percent) %: some windows not bad")
      XCTAssertGreaterThan(raw.filter { $0 >= .bad }.count, 10, "\(percent) %: some windows bad")
      let alerts = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_rx_quality_bad" }
      XCTAssertEqual(alerts.map(\.state), [.firing], "\(percent) %, seed \(seed): one alert")
      let start = try XCTUnwrap(alerts.first?.start)
      XCTAssertLessThan(start.seconds(since: Scenario.time(0)), 180)
      for (time, rx) in ticks where time >= start {
        XCTAssertGreaterThanOrEqual(rx.level, .bad, "\(percent) %: shown at \(time)")
      }
    }
  }

  /// 0 → 12 % → 0: the alert ends within seconds of the loss, together with the level shown.
  func testARealRecoveryEndsTheAlertWithinSeconds() throws {
    let scenario = play(percent: 12, seed: 4, during: 60..<300, seconds: 360)
    let alerts = scenario.events.compactMap(\.alert).filter { $0.rule == "peer_rx_quality_bad" }
    XCTAssertEqual(alerts.map(\.state), [.firing, .resolved])
    let end = try XCTUnwrap(alerts.last?.end)
    let afterLoss = end.seconds(since: Scenario.time(300))
    // The pooled windows (6 s) drain, then three good windows in a row.
    XCTAssertGreaterThan(afterLoss, 0)
    XCTAssertLessThanOrEqual(afterLoss, 12)
    let shown = try XCTUnwrap(
      scenario.ticks.first { $0.snapshot.time == end }?.snapshot.peers.first?.rx.level)
    XCTAssertLessThanOrEqual(shown, .good, "the level shown recovered at the same tick")
  }
}
