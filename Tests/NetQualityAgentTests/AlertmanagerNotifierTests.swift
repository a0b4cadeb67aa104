import Foundation
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import Synchronization
import XCTest

@testable import NetQualityAgent

/// The notifier against an Alertmanager API on loopback (`FakeAlertmanager`): what it posts,
/// how it retries, what it drops and counts, the log lines, the final flush.
final class AlertmanagerNotifierTests: XCTestCase {
  typealias Schedule = AlertmanagerScheduleTests

  /// Log lines as they came.
  final class Lines: Sendable {
    private let stored = Mutex<[(AlertmanagerNotifier.LogLevel, String)]>([])
    var all: [(AlertmanagerNotifier.LogLevel, String)] { stored.withLock { $0 } }
    var log: AlertmanagerNotifier.Log {
      { level, line in self.stored.withLock { $0.append((level, line)) } }
    }
  }

  static func notifier(
    ports: [Int], lines: Lines, timeoutSeconds: Double = 2, queueCapacity: Int = 100
  ) throws -> AlertmanagerNotifier {
    var settings = AlertmanagerNotifier.Settings(
      urls: try ports.map { try XCTUnwrap(AlertmanagerURL("http://127.0.0.1:\($0)")) },
      timeoutSeconds: timeoutSeconds, resendIntervalSeconds: 60, queueCapacity: queueCapacity,
      context: Schedule.context)
    settings.backoffInitialSeconds = 0.05
    return AlertmanagerNotifier(settings: settings, log: lines.log)
  }

  func testFiringThenResolvedReachAlertmanager() async throws {
    let server = FakeAlertmanager()
    try await server.serve { port in
      let lines = Lines()
      let notifier = try Self.notifier(ports: [port], lines: lines)
      notifier.start()
      let alert = Schedule.alert("10.202.0.1")
      notifier.publish(firing: [alert], events: [], at: Schedule.at(0))
      let firstArrived = await server.waitForRequests(1, within: 5)
      XCTAssertTrue(firstArrived)
      var resolved = alert
      resolved.state = .resolved
      resolved.end = Schedule.at(13)
      let event = EngineEvent(
        time: Schedule.at(14), kind: .alertResolved, peer: "10.202.0.1", alert: resolved)
      notifier.publish(firing: [], events: [event], at: Schedule.at(14))
      let secondArrived = await server.waitForRequests(2, within: 5)
      XCTAssertTrue(secondArrived)
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))

      let requests = server.requests
      XCTAssertEqual(requests.count, 2)
      let firing = try XCTUnwrap(requests.first?.first)
      let labels = try XCTUnwrap(firing["labels"] as? [String: String])
      XCTAssertEqual(labels["alertname"], "peer_disconnected")
      XCTAssertEqual(labels["peer"], "10.202.0.1")
      XCTAssertEqual(labels["severity"], "critical")
      XCTAssertEqual(labels["job"], "netquality")
      XCTAssertEqual(firing["startsAt"] as? String, "2026-09-21T14:13:20.000Z")
      XCTAssertEqual(firing["endsAt"] as? String, "2026-09-21T14:17:20.000Z", "4 resends ahead")
      let ended = try XCTUnwrap(requests.last?.first)
      XCTAssertEqual(ended["endsAt"] as? String, "2026-09-21T14:13:33.000Z", "its resolution")
      let counters = notifier.counters
      XCTAssertEqual(counters.targets.first?.sent, 2)
      XCTAssertEqual(counters.targets.first?.failed, 0)
      XCTAssertEqual(counters.targets.first?.up, true)
      XCTAssertEqual(counters.targets.first?.requestSeconds.count, 2)
      XCTAssertEqual(counters.queueLength, 0)
      XCTAssertEqual(counters.activeAlerts, 0)
      XCTAssertTrue(lines.all.isEmpty, "nothing to log while it works")
    }
  }

  func testFailuresAreRetriedWithBackoffAndLoggedOnceEachWay() async throws {
    let server = FakeAlertmanager(answers: [
      .status(503, "busy"), .status(500, "boom\nsecond line"), .status(503, "busy"),
    ])
    try await server.serve { port in
      let lines = Lines()
      let notifier = try Self.notifier(ports: [port], lines: lines)
      notifier.start()
      let started = ContinuousClock.now
      notifier.publish(firing: [Schedule.alert("10.0.0.1")], events: [], at: Schedule.at(0))
      let arrived = await server.waitForRequests(4, within: 10)
      XCTAssertTrue(arrived, "three failures, then the retry that works")
      // Backoff of 0.05, 0.1 and 0.2 s between the four attempts.
      XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(350))
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      let keys = server.requests.map {
        $0.compactMap { ($0["labels"] as? [String: String])?["peer"] }
      }
      XCTAssertEqual(keys, Array(repeating: ["10.0.0.1"], count: 4), "the same batch each time")
      let counters = try XCTUnwrap(notifier.counters.targets.first)
      XCTAssertEqual(counters.failed, 3)
      XCTAssertEqual(counters.sent, 1)
      let logged = lines.all
      XCTAssertEqual(logged.count, 2, "\(logged)")
      XCTAssertEqual(logged.first?.0, .warning)
      XCTAssertEqual(
        logged.first?.1,
        "alertmanager http://127.0.0.1:\(port): cannot deliver alerts: answered 503: busy; "
          + "retrying with backoff up to 30 s, 100 alerts queued at most")
      XCTAssertEqual(logged.last?.0, .info)
      XCTAssertTrue(
        logged.last?.1.hasPrefix("alertmanager http://127.0.0.1:\(port): delivering again after ")
          ?? false)
      XCTAssertTrue(logged.last?.1.hasSuffix("(3 alerts failed meanwhile)") ?? false)
    }
  }

  func testARefusedBatchIsDroppedAndCountedNotRetried() async throws {
    let server = FakeAlertmanager(answers: [.status(400, "start time must be before end time")])
    try await server.serve { port in
      let lines = Lines()
      let notifier = try Self.notifier(ports: [port], lines: lines)
      notifier.start()
      notifier.publish(firing: [Schedule.alert("10.0.0.1")], events: [], at: Schedule.at(0))
      let first = await server.waitForRequests(1, within: 5)
      XCTAssertTrue(first)
      // The next alert goes through: the refused one was not left at the head of the queue.
      notifier.publish(
        firing: [Schedule.alert("10.0.0.1"), Schedule.alert("10.0.0.2")], events: [],
        at: Schedule.at(2))
      let second = await server.waitForRequests(2, within: 5)
      XCTAssertTrue(second)
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      let peers = server.requests.last?.compactMap { ($0["labels"] as? [String: String])?["peer"] }
      XCTAssertEqual(peers, ["10.0.0.2"])
      XCTAssertEqual(notifier.counters.droppedRejected, 1)
      XCTAssertEqual(
        lines.all.first?.1,
        "alertmanager http://127.0.0.1:\(port): cannot deliver alerts: answered 400: start time "
          + "must be before end time; alerts it refuses are dropped (counted)")
    }
  }

  func testNoAnswerInTimeIsAFailure() async throws {
    let server = FakeAlertmanager(answers: [.delay(seconds: 1)])
    try await server.serve { port in
      let lines = Lines()
      let notifier = try Self.notifier(ports: [port], lines: lines, timeoutSeconds: 0.3)
      notifier.start()
      notifier.publish(firing: [Schedule.alert("10.0.0.1")], events: [], at: Schedule.at(0))
      let retried = await server.waitForRequests(2, within: 10)
      XCTAssertTrue(retried)
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      XCTAssertEqual(
        lines.all.first?.1,
        "alertmanager http://127.0.0.1:\(port): cannot deliver alerts: no answer within 0.3 s; "
          + "retrying with backoff up to 30 s, 100 alerts queued at most")
      let target = try XCTUnwrap(notifier.counters.targets.first)
      XCTAssertEqual(target.failed, 1)
      XCTAssertEqual(target.sent, 1)
      XCTAssertGreaterThanOrEqual(target.requestSeconds.sumSeconds, 0.3)
    }
  }

  func testWhileUnreachableTheQueueKeepsTheNewestAndCountsWhatItDrops() async throws {
    let lines = Lines()
    let port = try await FakeAlertmanager.closedPort()
    let notifier = try Self.notifier(ports: [port], lines: lines, queueCapacity: 3)
    notifier.start()
    let peers = (1...5).map { "10.0.0.\($0)" }
    var firing: [Alert] = []
    for (index, peer) in peers.enumerated() {
      firing.append(Schedule.alert(peer))
      notifier.publish(firing: firing, events: [], at: Schedule.at(Double(index)))
    }
    // The notifier takes each tick's alerts even while it backs off.
    let deadline = Date().addingTimeInterval(5)
    while notifier.counters.droppedQueueFull < 2 && Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    let counters = notifier.counters
    XCTAssertEqual(counters.droppedQueueFull, 2)
    XCTAssertEqual(counters.queueLength, 3)
    XCTAssertEqual(counters.activeAlerts, 5)
    XCTAssertGreaterThan(counters.targets.first?.failed ?? 0, 0)
    XCTAssertEqual(counters.targets.first?.up, false)
    XCTAssertFalse(
      notifier.stop(deadline: Date().addingTimeInterval(2)), "the final flush cannot deliver")
    let warnings = lines.all.filter { $0.0 == .warning }
    XCTAssertEqual(warnings.count, 1, "one line however many retries: \(lines.all)")
    XCTAssertEqual(
      warnings.first?.1,
      "alertmanager http://127.0.0.1:\(port): cannot deliver alerts: cannot connect: "
        + "127.0.0.1:\(port): Connection refused; retrying with backoff up to 30 s, 3 alerts "
        + "queued at most")
  }

  func testAlertsGoInBatchesOf256() async throws {
    let server = FakeAlertmanager()
    try await server.serve { port in
      let notifier = try Self.notifier(ports: [port], lines: Lines(), queueCapacity: 1000)
      notifier.start()
      let firing = (0..<300).map { Schedule.alert("10.1.\($0 / 256).\($0 % 256)") }
      notifier.publish(firing: firing, events: [], at: Schedule.at(0))
      let arrived = await server.waitForRequests(2, within: 5)
      XCTAssertTrue(arrived)
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      XCTAssertEqual(server.requests.map(\.count), [256, 44])
      XCTAssertEqual(notifier.counters.targets.first?.sent, 300)
    }
  }

  func testAReloadsRulesDescribeTheAlertsFromThenOn() async throws {
    let server = FakeAlertmanager()
    try await server.serve { port in
      let notifier = try Self.notifier(ports: [port], lines: Lines())
      notifier.start()
      notifier.reconfigure(
        rules: [
          AlertRule(
            name: "peer_disconnected", metric: .connectionState, comparison: .equal,
            threshold: 3, forTicks: 5, severity: .critical)
        ], tickIntervalSeconds: 1, runbookURL: "https://wiki.example.net/netquality/runbook")
      notifier.publish(firing: [Schedule.alert("10.0.0.1")], events: [], at: Schedule.at(0))
      let arrived = await server.waitForRequests(1, within: 5)
      XCTAssertTrue(arrived)
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      let annotations = server.requests.first?.first?["annotations"] as? [String: String]
      XCTAssertTrue(
        annotations?["description"]?.hasPrefix(
          "Rule peer_disconnected: state == 3 (disconnected) for 5 ticks (5 s)") ?? false,
        annotations?["description"] ?? "")
      XCTAssertEqual(
        annotations?["runbook_url"],
        "https://wiki.example.net/netquality/runbook#peer_disconnected")
    }
  }

  func testOneAlertmanagerOfTwoIsEnough() async throws {
    let server = FakeAlertmanager()
    let closed = try await FakeAlertmanager.closedPort()
    try await server.serve { port in
      let lines = Lines()
      let notifier = try Self.notifier(ports: [closed, port], lines: lines)
      notifier.start()
      notifier.publish(firing: [Schedule.alert("10.0.0.1")], events: [], at: Schedule.at(0))
      let arrived = await server.waitForRequests(1, within: 5)
      XCTAssertTrue(arrived)
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      let targets = notifier.counters.targets
      XCTAssertEqual(targets.map(\.sent), [0, 1])
      XCTAssertEqual(targets.map(\.failed), [1, 0])
      XCTAssertEqual(server.requestCount, 1, "delivered: not retried")
      XCTAssertEqual(notifier.counters.queueLength, 0)
    }
  }

  func testTheFinalFlushSendsWhatTheLastTickLeft() async throws {
    let server = FakeAlertmanager()
    try await server.serve { port in
      let notifier = try Self.notifier(ports: [port], lines: Lines())
      // Published before the thread starts and stopped at once: the stop's flush sends it
      // if the loop has not.
      notifier.publish(firing: [Schedule.alert("10.0.0.9")], events: [], at: Schedule.at(0))
      notifier.start()
      XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(5)))
      XCTAssertEqual(server.requestCount, 1)
      XCTAssertEqual(notifier.counters.targets.first?.sent, 1)
    }
  }
}
