import XCTest

@testable import NetQualityCore

final class AlertEvaluatorTests: XCTestCase {
  let rule = AlertRule(
    name: "loss", metric: .rxLossRatio, comparison: .greater, threshold: 0.05, forTicks: 3,
    severity: .warning)

  func time(_ tick: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_700_000_000_000_000_000 + Int64(tick) * 2_000_000_000)
  }

  /// Evaluates `values` (one per tick) for one peer; the changes of each tick.
  func run(_ values: [Double?], evaluator: inout AlertEvaluator) -> [[Alert]] {
    values.enumerated().map { tick, value in
      evaluator.evaluate(
        peer: "p", at: time(tick), value: { _ in value },
        inputs: { _ in
          value.map {
            QualityModel.Inputs(
              packets: 100, lossRatio: $0, jitterMilliseconds: $0 * 100,
              roundTripMilliseconds: nil, isVideo: false)
          }
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

  func testResolveAllEndsAPeersAlertsAndItsStreaks() {
    var evaluator = AlertEvaluator(rules: [rule])
    _ = run([0.1, 0.1, 0.1], evaluator: &evaluator)
    let resolved = evaluator.resolveAll(peer: "p", at: time(3))
    XCTAssertEqual(resolved.map(\.state), [.resolved])
    XCTAssertEqual(evaluator.resolveAll(peer: "p", at: time(4)).count, 0)
    // The streak restarted: two more bad ticks are not enough.
    XCTAssertEqual(run([0.1, 0.1], evaluator: &evaluator).flatMap { $0 }.count, 0)
  }

  func testStreaksOfSeveralRulesEndOneByOneAndAcrossAReload() {
    let jitter = AlertRule(
      name: "jitter", metric: .rxJitterMilliseconds, comparison: .greater, threshold: 20,
      forTicks: 1, severity: .warning)
    var evaluator = AlertEvaluator(rules: [rule, jitter])
    func tick(_ tick: Int, loss: Double, jitterMilliseconds: Double) -> [Alert] {
      evaluator.evaluate(
        peer: "p", at: time(tick),
        value: { $0 == .rxLossRatio ? loss : jitterMilliseconds }, describe: { _, _ in "" })
    }
    XCTAssertEqual(tick(0, loss: 0.1, jitterMilliseconds: 30).map(\.rule), ["jitter"])
    XCTAssertEqual(tick(1, loss: 0.1, jitterMilliseconds: 5).map(\.state), [.resolved])
    // The loss streak went on beside the jitter one's end: its third tick fires.
    XCTAssertEqual(tick(2, loss: 0.1, jitterMilliseconds: 5).map(\.rule), ["loss"])
    XCTAssertEqual(tick(3, loss: 0.01, jitterMilliseconds: 5).map(\.state), [.resolved])
    // Healthy again: nothing holds, nothing left to resolve.
    XCTAssertEqual(evaluator.resolveAll(peer: "p", at: time(4)).count, 0)
    XCTAssertEqual(tick(5, loss: 0.1, jitterMilliseconds: 30).map(\.rule), ["jitter"])
    // A reload drops the jitter rule while it fires: the peer's end still resolves it.
    evaluator.rules = [rule]
    XCTAssertEqual(tick(6, loss: 0.01, jitterMilliseconds: 30).count, 0)
    XCTAssertEqual(evaluator.resolveAll(peer: "p", at: time(7)).map(\.rule), ["jitter"])
    XCTAssertTrue(evaluator.firing.isEmpty)
  }
}
