import NetQualityCore
import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// When the notifier tells Alertmanager what (new, resent, resolved), how long it backs off,
/// and how its queue stays bounded — all without a socket.
final class AlertmanagerScheduleTests: XCTestCase {
  static let t0 = CaptureTime(nanosecondsSinceEpoch: 1_790_000_000_000_000_000)

  static let context = AlertmanagerPayload.Context(
    labels: ["job": "netquality"], generatorURL: "http://127.0.0.1:9470/api/v1/alerts",
    rules: AlertRule.builtIn, tickIntervalSeconds: 2)

  static func alert(_ peer: String, start: CaptureTime = t0) -> Alert {
    Alert(
      id: "peer_disconnected:\(peer):\(start.nanosecondsSinceEpoch / 1_000_000)",
      rule: "peer_disconnected", severity: .critical, labels: ["peer": peer], state: .firing,
      start: start, summary: "peer \(peer) disconnected")
  }

  static func at(_ seconds: Double) -> CaptureTime { t0.advanced(bySeconds: seconds) }

  func testNewResentAndResolvedAlerts() {
    var schedule = AlertmanagerSchedule(resendIntervalSeconds: 60, context: Self.context)
    let a = Self.alert("10.0.0.1")
    // New: at once, holding for 4 resend intervals.
    var due = schedule.due(firing: [a], resolvedAt: [:], at: Self.at(0))
    XCTAssertEqual(due.map(\.key), [a.id])
    XCTAssertEqual(due.first?.endsAt, Self.at(240))
    XCTAssertEqual(schedule.activeCount, 1)
    // Ticks within the resend interval: nothing.
    for seconds in stride(from: 2.0, through: 58, by: 2) {
      XCTAssertEqual(schedule.due(firing: [a], resolvedAt: [:], at: Self.at(seconds)), [])
    }
    // Resent at 60 s with its end moved ahead; the start stays.
    due = schedule.due(firing: [a], resolvedAt: [:], at: Self.at(60))
    XCTAssertEqual(due.map(\.key), [a.id])
    XCTAssertEqual(due.first?.startsAt, Self.at(0))
    XCTAssertEqual(due.first?.endsAt, Self.at(300))
    XCTAssertEqual(schedule.due(firing: [a], resolvedAt: [:], at: Self.at(62)), [])
    // Gone with the engine's resolution time: ends then, once.
    due = schedule.due(firing: [], resolvedAt: [a.id: Self.at(63)], at: Self.at(64))
    XCTAssertEqual(due.map(\.key), [a.id])
    XCTAssertEqual(due.first?.endsAt, Self.at(63))
    XCTAssertEqual(due.first?.labels["alertname"], "peer_disconnected")
    XCTAssertEqual(schedule.due(firing: [], resolvedAt: [:], at: Self.at(66)), [])
    XCTAssertEqual(schedule.activeCount, 0)
  }

  func testAnAlertGoneWithoutAResolutionTimeEndsAtTheTick() {
    var schedule = AlertmanagerSchedule(resendIntervalSeconds: 60, context: Self.context)
    let a = Self.alert("10.0.0.1")
    let b = Self.alert("10.0.0.2")
    XCTAssertEqual(schedule.due(firing: [a, b], resolvedAt: [:], at: Self.at(0)).count, 2)
    let due = schedule.due(firing: [b], resolvedAt: [:], at: Self.at(10))
    XCTAssertEqual(due.map(\.key), [a.id])
    XCTAssertEqual(due.first?.endsAt, Self.at(10))
  }

  func testAPeerFiringAgainIsANewAlert() {
    var schedule = AlertmanagerSchedule(resendIntervalSeconds: 60, context: Self.context)
    let first = Self.alert("10.0.0.1")
    _ = schedule.due(firing: [first], resolvedAt: [:], at: Self.at(0))
    _ = schedule.due(firing: [], resolvedAt: [:], at: Self.at(4))
    let again = Self.alert("10.0.0.1", start: Self.at(8))
    let due = schedule.due(firing: [again], resolvedAt: [:], at: Self.at(8))
    XCTAssertEqual(due.map(\.key), [again.id])
    XCTAssertEqual(due.first?.startsAt, Self.at(8))
  }

  /// A reload that removes a firing alert's rule resolves it at the next tick (an
  /// `alertResolved` event, and gone from the firing list): Alertmanager gets it resolved with
  /// the labels and annotations it fired with, not a description of the rules left.
  func testAnAlertWhoseRuleAReloadRemovedIsResolvedAsItFired() {
    let rule = AlertRule(
      name: "high_loss", metric: .rxLossRatio, comparison: .greater, threshold: 0.05,
      forTicks: 3, clearThreshold: 0.02, severity: .warning)
    var context = Self.context
    context.rules = AlertRule.builtIn + [rule]
    var schedule = AlertmanagerSchedule(resendIntervalSeconds: 60, context: context)
    let alert = Alert(
      id: "high_loss:10.0.0.1:0", rule: "high_loss", severity: .warning,
      labels: ["peer": "10.0.0.1", "direction": "rx"], state: .firing, start: Self.at(0),
      summary: "peer 10.0.0.1 rx_loss_ratio 0.12 over 3 ticks")
    let fired = schedule.due(firing: [alert], resolvedAt: [:], at: Self.at(0))
    XCTAssertEqual(fired.count, 1)
    XCTAssertTrue(
      fired.first?.annotations["description"]?.hasPrefix("Rule high_loss: rx_loss_ratio > 0.05")
        ?? false, "\(fired)")
    // The reload: the rule is gone from the context; the engine resolves the alert at the
    // next tick.
    schedule.context.rules = AlertRule.builtIn
    let due = schedule.due(firing: [], resolvedAt: [alert.id: Self.at(4)], at: Self.at(4))
    XCTAssertEqual(due.map(\.key), [alert.id])
    XCTAssertEqual(due.first?.labels, fired.first?.labels, "the same alert for Alertmanager")
    XCTAssertEqual(due.first?.annotations, fired.first?.annotations)
    XCTAssertEqual(due.first?.startsAt, Self.at(0))
    XCTAssertEqual(due.first?.endsAt, Self.at(4))
    XCTAssertEqual(due.first?.isResolved(at: Self.at(4)), true)
    XCTAssertEqual(schedule.activeCount, 0)
  }

  func testBackoffDoublesToItsCapAndRestartsAfterADelivery() {
    var backoff = AlertmanagerBackoff(resendIntervalSeconds: 60)
    XCTAssertEqual((0..<7).map { _ in backoff.failed() }, [1, 2, 4, 8, 16, 30, 30])
    backoff.succeeded()
    XCTAssertEqual(backoff.failed(), 1)
    var short = AlertmanagerBackoff(resendIntervalSeconds: 5)
    XCTAssertEqual((0..<5).map { _ in short.failed() }, [1, 2, 4, 5, 5], "never past a resend")
  }

  // MARK: - The queue

  static func notification(_ key: String, endsAt: Double = 240) -> AlertNotification {
    AlertNotification(
      key: key, labels: ["alertname": key], annotations: [:], startsAt: t0,
      endsAt: at(endsAt), generatorURL: "")
  }

  func testTheQueueDropsTheOldestWhenFull() {
    var queue = AlertmanagerQueue(capacity: 3)
    for key in ["a", "b", "c", "d", "e"] { queue.push(Self.notification(key)) }
    XCTAssertEqual(queue.count, 3)
    XCTAssertEqual(queue.dropped, 2)
    XCTAssertEqual(queue.first(10).map(\.notification.key), ["c", "d", "e"])
  }

  func testANewerNotificationReplacesTheWaitingOneAndMovesBack() {
    var queue = AlertmanagerQueue(capacity: 3)
    for key in ["a", "b", "c"] { queue.push(Self.notification(key)) }
    queue.push(Self.notification("a", endsAt: 300))
    XCTAssertEqual(queue.count, 3)
    XCTAssertEqual(queue.dropped, 0, "a replacement is not a drop")
    XCTAssertEqual(queue.first(10).map(\.notification.key), ["b", "c", "a"])
    XCTAssertEqual(queue.first(10).last?.notification.endsAt, Self.at(300))
  }

  func testADeliveredBatchGoesButANewerVersionOfItStays() {
    var queue = AlertmanagerQueue(capacity: 10)
    for key in ["a", "b", "c"] { queue.push(Self.notification(key)) }
    let batch = queue.first(2)
    XCTAssertEqual(batch.map(\.notification.key), ["a", "b"])
    // While the batch is on its way, "a" resolves.
    queue.push(Self.notification("a", endsAt: 10))
    queue.remove(batch)
    XCTAssertEqual(queue.first(10).map(\.notification.key), ["c", "a"])
    XCTAssertEqual(queue.first(10).last?.notification.endsAt, Self.at(10))
    queue.remove(queue.first(10))
    XCTAssertTrue(queue.isEmpty)
  }

  func testResendsDuringALongOutageKeepOneEntryPerAlertInOrder() {
    var queue = AlertmanagerQueue(capacity: 100)
    let keys = (0..<50).map { "alert\($0)" }
    for round in 0..<200 {
      for key in keys { queue.push(Self.notification(key, endsAt: Double(round))) }
    }
    XCTAssertEqual(queue.count, 50)
    XCTAssertEqual(queue.dropped, 0)
    XCTAssertLessThanOrEqual(queue.storedSlots, 2 * 50 + 1024 + 1, "holes are squeezed out")
    let waiting = queue.first(100)
    XCTAssertEqual(waiting.map(\.notification.key), keys)
    XCTAssertTrue(waiting.allSatisfy { $0.notification.endsAt == Self.at(199) })
  }
}
