import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class AlertEvaluatorTests: XCTestCase {
  let rule = AlertRule(
    name: "loss", metric: .rxLossRatio, comparison: .greater, threshold: 0.05, forTicks: 3,
    keepFiringForTicks: 1, severity: .warning)

  func time(_ tick: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_700_000_000_000_000_000 + Int64(tick) * 2_000_000_000)
  }

  /// Evaluates `values` (one per tick, measured and shown alike) for one peer; the changes of
  /// each tick.
  func run(_ values: [Double?], evaluator: inout AlertEvaluator) -> [[Alert]] {
    values.enumerated().map { tick, value in
      evaluator.evaluate(
        peer: "p", at: time(tick),
        observe: { _ in
          .init(
            measured: value, shown: value,
            inputs: value.map {
              QualityModel.Inputs(
                packets: 100, lossRatio: $0, jitterMilliseconds: $0 * 100,
                roundTripMilliseconds: nil, isVideo: false)
            })
        },
        describe: { _, evidence in
          "loss \(evidence.worstValue) over \(evidence.ticks), jitter up to "
            + "\(evidence.maxJitterMilliseconds ?? -1)"
        })
    }
  }

  func testFiresAfterForTicksInARowAndResolvesWhenItStopsHolding() throws {
    var evaluator = AlertEvaluator(rules: [rule])
    let changes = run([0.1, 0.1, 0.04, 0.3, 0.1, 0.08, 0.2, 0.01], evaluator: &evaluator)
    XCTAssertEqual(changes.map(\.count), [0, 0, 0, 0, 0, 1, 0, 1])
    let fired = try XCTUnwrap(changes[5].first)
    XCTAssertEqual(fired.state, .firing)
    XCTAssertEqual(fired.start, time(5))
    XCTAssertEqual(fired.id, "loss:p:\(time(5).nanosecondsSinceEpoch / 1_000_000)")
    XCTAssertEqual(fired.labels, ["peer": "p", "direction": "rx"])
    XCTAssertEqual(
      fired.summary, "loss 0.3 over 3, jitter up to 30.0",
      "the worst of the ticks that fired it, not the last one's 0.08")
    let resolved = try XCTUnwrap(changes[7].first)
    XCTAssertEqual(resolved.state, .resolved)
    XCTAssertEqual(resolved.id, fired.id)
    XCTAssertEqual(resolved.end, time(7))
    XCTAssertTrue(evaluator.firing.isEmpty)
  }

  /// Issue 25: a figure scattering around its threshold is one alert, resolved only after
  /// `keep_firing_for` ticks clear in a row.
  func testKeepFiringForHoldsOneAlertThroughClearTicksShorterThanIt() {
    var sticky = rule
    sticky.keepFiringForTicks = 4
    var evaluator = AlertEvaluator(rules: [sticky])
    let values = [0.1, 0.1, 0.1, 0.01, 0.1, 0.04, 0.03, 0.02, 0.1, 0.01, 0.01, 0.01, 0.01, 0.1]
    let states = run(values, evaluator: &evaluator).map { $0.map(\.state) }
    XCTAssertEqual(
      states,
      [[], [], [.firing], [], [], [], [], [], [], [], [], [], [.resolved], []],
      "three clear ticks did not resolve it; the fourth in a row did")
  }

  func testAClearThresholdEndsARealRecoveryAfterForTicks() {
    var sticky = rule
    sticky.keepFiringForTicks = 30
    sticky.clearThreshold = 0.02
    var evaluator = AlertEvaluator(rules: [sticky])
    // Just below the threshold keeps it firing; well clear for 3 ticks resolves it.
    let values = [0.1, 0.1, 0.1, 0.04, 0.04, 0.04, 0.04, 0.01, 0.01, 0.01]
    let states = run(values, evaluator: &evaluator).map { $0.map(\.state) }
    XCTAssertEqual(states, [[], [], [.firing], [], [], [], [], [], [], [.resolved]])
  }

  func testAThresholdIsStrictOrNotAsWritten() {
    var strict = AlertEvaluator(rules: [rule])
    XCTAssertEqual(run([0.05, 0.05, 0.05], evaluator: &strict).flatMap { $0 }.count, 0)
    var inclusive = AlertEvaluator(
      rules: [
        AlertRule(
          name: "loss", metric: .rxLossRatio, comparison: .greaterOrEqual, threshold: 0.05,
          forTicks: 3, severity: .warning)
      ])
    XCTAssertEqual(run([0.05, 0.05, 0.05], evaluator: &inclusive).flatMap { $0 }.count, 1)
  }

  func testAMetricThatCannotBeMeasuredDoesNotHold() {
    var evaluator = AlertEvaluator(rules: [rule])
    let changes = run([0.1, 0.1, 0.1, nil, 0.1], evaluator: &evaluator)
    XCTAssertEqual(changes.map { $0.map(\.state) }, [[], [], [.firing], [.resolved], []])
  }

  /// A quality level: pending while the level shown meets the rule, fired after `for` ticks
  /// that measured it (not necessarily in a row), resolved when the level shown leaves it.
  func testALevelRuleFiresOnMeasuredTicksAndResolvesOnTheLevelShown() {
    let bad = AlertRule.builtIn[0]
    XCTAssertEqual(bad.name, "peer_rx_quality_bad")
    var evaluator = AlertEvaluator(rules: [bad])
    // (measured, shown): the shown level is the damped one.
    let ticks: [(Int, Int)] = [
      (4, 4), (3, 4), (4, 4), (3, 4), (3, 4), (4, 4),  // fires at the third bad window
      (3, 4), (3, 4), (2, 4), (3, 4),  // the shown level holds: still one alert
      (1, 1),  // the shown level is excellent: resolved
    ]
    var states: [[Alert.State]] = []
    for (tick, (measured, shown)) in ticks.enumerated() {
      states.append(
        evaluator.evaluate(
          peer: "p", at: time(tick),
          observe: { _ in .init(measured: Double(measured), shown: Double(shown)) },
          describe: { _, evidence in "over \(evidence.ticks)" }
        ).map(\.state))
    }
    XCTAssertEqual(states, [[], [], [], [], [], [.firing], [], [], [], [], [.resolved]])
    // One bad window, the shown level bad for three ticks after it: no alert.
    var single = AlertEvaluator(rules: [bad])
    let spike = [(4, 4), (1, 4), (1, 4), (1, 1)].enumerated().flatMap { tick, pair in
      single.evaluate(
        peer: "p", at: time(tick),
        observe: { _ in .init(measured: Double(pair.0), shown: Double(pair.1)) },
        describe: { _, _ in "" })
    }
    XCTAssertTrue(spike.isEmpty)
  }

  /// Issue 40, item 2: a firing alert of a peer gone silent is held, not resolved; it resolves
  /// once the figure is measured clear again.
  func testASilentPeersFiringAlertIsHeldNotResolved() {
    var evaluator = AlertEvaluator(rules: [rule])
    var states: [[Alert.State]] = []
    let ticks: [(Double?, Bool)] = [
      (0.1, false), (0.1, false), (0.1, false), (nil, true), (nil, true), (nil, true),
      (0.01, false),
    ]
    for (tick, (value, silent)) in ticks.enumerated() {
      states.append(
        evaluator.evaluate(
          peer: "p", at: time(tick),
          observe: { _ in .init(measured: value, shown: value, peerSilent: silent) },
          describe: { _, _ in "" }
        ).map(\.state))
    }
    XCTAssertEqual(states, [[], [], [.firing], [], [], [], [.resolved]])
  }

  func testResolveAllEndsAPeersAlertsAndItsStreaks() {
    var evaluator = AlertEvaluator(rules: [rule])
    _ = run([0.1, 0.1, 0.1], evaluator: &evaluator)
    let resolved = evaluator.resolveAll(peer: "p", at: time(3))
    XCTAssertEqual(resolved.map(\.state), [.resolved])
    XCTAssertEqual(evaluator.resolveAll(peer: "p", at: time(4)).count, 0)
    // The streak restarted: two more bad ticks are not enough.
    XCTAssertEqual(run([0.1, 0.1], evaluator: &evaluator).flatMap { $0 }.count, 0)
  }

  func testStreaksOfSeveralRulesEndOneByOne() {
    let jitter = AlertRule(
      name: "jitter", metric: .rxJitterMilliseconds, comparison: .greater, threshold: 20,
      forTicks: 1, keepFiringForTicks: 1, severity: .warning)
    var evaluator = AlertEvaluator(rules: [rule, jitter])
    func tick(_ tick: Int, loss: Double, jitterMilliseconds: Double) -> [Alert] {
      evaluator.evaluate(
        peer: "p", at: time(tick),
        observe: { metric in
          let value = metric == .rxLossRatio ? loss : jitterMilliseconds
          return .init(measured: value, shown: value)
        }, describe: { _, _ in "" })
    }
    XCTAssertEqual(tick(0, loss: 0.1, jitterMilliseconds: 30).map(\.rule), ["jitter"])
    XCTAssertEqual(tick(1, loss: 0.1, jitterMilliseconds: 5).map(\.state), [.resolved])
    // The loss streak went on beside the jitter one's end: its third tick fires.
    XCTAssertEqual(tick(2, loss: 0.1, jitterMilliseconds: 5).map(\.rule), ["loss"])
    XCTAssertEqual(tick(3, loss: 0.01, jitterMilliseconds: 5).map(\.state), [.resolved])
    // Healthy again: nothing holds, nothing left to resolve.
    XCTAssertEqual(evaluator.resolveAll(peer: "p", at: time(4)).count, 0)
  }

  /// Issue 25: a reload that removes or changes a firing rule resolves its alerts at the next
  /// tick; a rule changed under the same name starts from a clean state; untouched rules keep
  /// theirs.
  func testAReloadResolvesTheAlertsOfRemovedAndChangedRules() {
    let jitter = AlertRule(
      name: "jitter", metric: .rxJitterMilliseconds, comparison: .greater, threshold: 20,
      forTicks: 1, keepFiringForTicks: 1, severity: .warning)
    let rtt = AlertRule(
      name: "rtt", metric: .roundTripMilliseconds, comparison: .greater, threshold: 100,
      forTicks: 1, keepFiringForTicks: 1, severity: .warning)
    var evaluator = AlertEvaluator(rules: [rule, jitter, rtt])
    func tick(_ tick: Int) -> [Alert] {
      evaluator.evaluate(
        peer: "p", at: time(tick),
        observe: { metric in
          let value: Double =
            switch metric {
            case .rxLossRatio: 0.1
            case .rxJitterMilliseconds: 30
            default: 300
            }
          return .init(measured: value, shown: value)
        }, describe: { _, _ in "" })
    }
    _ = tick(0)
    _ = tick(1)
    XCTAssertEqual(tick(2).map(\.rule).sorted(), ["loss"])
    XCTAssertEqual(evaluator.firing.count, 3)
    // Loss's threshold changes, jitter goes, rtt stays as it was.
    var changed = rule
    changed.threshold = 0.08
    evaluator.replaceRules([changed, rtt])
    let resolved = evaluator.resolveRetired(at: time(3))
    XCTAssertEqual(resolved.map(\.rule), ["jitter", "loss"])
    XCTAssertTrue(resolved.allSatisfy { $0.state == .resolved && $0.end == time(3) })
    XCTAssertEqual(evaluator.firing.keys.map(\.rule), ["rtt"])
    // The changed rule starts clean: three more ticks to fire.
    XCTAssertEqual(tick(3).count, 0)
    XCTAssertEqual(tick(4).count, 0)
    XCTAssertEqual(tick(5).map(\.rule), ["loss"])
    XCTAssertEqual(evaluator.resolveRetired(at: time(6)).count, 0, "once only")
  }

  /// Issue 37: the firing alerts in order of start and id, kept up to date as alerts fire,
  /// resolve, fire again and peers are forgotten, over many peers and ticks (a random walk
  /// checked against a sort of every firing alert at every tick).
  func testOrderedFiringMatchesASortAtEveryTick() {
    var evaluator = AlertEvaluator(rules: [rule])
    var generator = SplitMix64(seed: 37)
    let peers = (0..<200).map { "10.0.\($0 / 250).\($0 % 250)" }
    var loss = [String: Double](uniqueKeysWithValues: peers.map { ($0, 0) })
    for tick in 0..<300 {
      for peer in peers.shuffled(using: &generator) {
        if generator.next() % 10 == 0 { loss[peer] = generator.next() % 2 == 0 ? 0.1 : 0 }
        if generator.next() % 200 == 0 {
          _ = evaluator.resolveAll(peer: peer, at: time(tick))
          continue
        }
        let value = loss[peer]
        _ = evaluator.evaluate(
          peer: peer, at: time(tick), observe: { _ in .init(measured: value, shown: value) },
          describe: { _, _ in "" })
      }
      // Settled every third tick: alerts also fire and resolve between two settlings.
      guard tick % 3 == 2 else { continue }
      evaluator.settleOrder()
      let sorted = evaluator.firing.values.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
      XCTAssertEqual(evaluator.ordered.map(\.id), sorted.map(\.id), "tick \(tick)")
    }
    XCTAssertGreaterThan(evaluator.firing.count, 10)
  }
}
