import Foundation
import GRDB
import NetQualityStore
import Synchronization
import XCTest

@testable import NetQualityAgent

/// Slow work off the concurrency pool: bounded, refused at once beyond the bound, dropped or
/// interrupted when its requester goes, interrupted past its time limit.
final class BoundedWorkQueueTests: XCTestCase {
  /// Work that blocks until released.
  final class Gate: Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    let entered = Atomic<Int>(0)
    func pass() {
      entered.add(1, ordering: .relaxed)
      semaphore.wait()
    }
  }

  /// The order work ran in.
  final class Order: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
  }

  func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
      guard ContinuousClock.now < deadline else { return XCTFail("timed out") }
      try await Task.sleep(for: .milliseconds(5))
    }
  }

  /// `runAlone`: one place per client; a second item of a client holding one is not queued.
  func testRunAloneGivesOnePlacePerClient() async throws {
    let queue = BoundedWorkQueue(name: "test", threads: 1, queueLimit: 4, timeoutSeconds: 60)
    defer { queue.stop() }
    let gate = Gate()
    let first = Task { try await queue.runAlone(client: "a") { _ in gate.pass() } }
    try await waitUntil { gate.entered.load(ordering: .relaxed) == 1 }
    let second: Int? = try await queue.runAlone(client: "a") { _ in 2 }
    XCTAssertNil(second, "client a holds its place")
    XCTAssertEqual(queue.load.waiting, 0)
    let other = Task { try await queue.runAlone(client: "b") { _ in 3 } }
    try await waitUntil { queue.load.waiting == 1 }
    gate.semaphore.signal()
    _ = try await first.value
    let answered = try await other.value
    XCTAssertEqual(answered, 3)
    // Its item done, client a has a place again.
    let again: Int? = try await queue.runAlone(client: "a") { _ in 4 }
    XCTAssertEqual(again, 4)
    XCTAssertEqual(queue.counters.refusedBusy.load(ordering: .relaxed), 0)
  }

  func testBeyondThreadsAndQueueRequestsAreRefusedAtOnce() async throws {
    let queue = BoundedWorkQueue(name: "test", threads: 1, queueLimit: 2, timeoutSeconds: 60)
    defer { queue.stop() }
    let gate = Gate()
    let held = (0..<3).map { value in
      Task {
        try await queue.run { _ in
          gate.pass()
          return value
        }
      }
    }
    try await waitUntil { queue.load.running == 1 && queue.load.waiting == 2 }
    let clock = ContinuousClock()
    let started = clock.now
    do {
      _ = try await queue.run { _ in 99 }
      XCTFail("a fourth request fits nowhere")
    } catch {
      XCTAssertEqual(error, .busy)
    }
    XCTAssertLessThan(clock.now - started, .milliseconds(50), "refused at once")
    XCTAssertEqual(queue.counters.refusedBusy.load(ordering: .relaxed), 1)
    for _ in 0..<3 { gate.semaphore.signal() }
    var values: [Int] = []
    for task in held { values.append(try await task.value) }
    XCTAssertEqual(values, [0, 1, 2])
  }

  /// Issue 39: five slow requests of one client held every other client's behind them.
  func testAnotherClientWaitsForOneItemNotForTheWholeQueue() async throws {
    let queue = BoundedWorkQueue(name: "test", threads: 1, queueLimit: 8, timeoutSeconds: 60)
    defer { queue.stop() }
    let gate = Gate()
    let order = Order()
    let slow = (0..<5).map { index in
      Task {
        try await queue.run(client: "10.0.0.9") { _ in
          gate.pass()
          order.append("slow \(index)")
        }
      }
    }
    try await waitUntil { queue.load.running == 1 && queue.load.waiting == 4 }
    let other = Task {
      try await queue.run(client: "10.0.0.1") { _ in order.append("other") }
    }
    try await waitUntil { queue.load.waiting == 5 }
    for _ in 0..<5 { gate.semaphore.signal() }
    try await other.value
    for task in slow { try await task.value }
    let ran = order.all
    XCTAssertEqual(ran.count, 6)
    // The slow client's first item was running; the other client's came next.
    XCTAssertEqual(ran.firstIndex(of: "other"), 1, "\(ran)")
  }

  /// Issue 39: after a restart, guessers kept the bcrypt queue full and the scraper's first
  /// check was refused. A client holding no place is admitted by refusing the newest waiting
  /// item of the client holding the most.
  func testAClientWithoutAPlaceIsAdmittedToAFullQueue() async throws {
    let queue = BoundedWorkQueue(name: "test", threads: 1, queueLimit: 2, timeoutSeconds: 60)
    defer { queue.stop() }
    let gate = Gate()
    let greedy = (0..<3).map { value in
      Task {
        try await queue.run(client: "10.0.0.9") { _ in
          gate.pass()
          return value
        }
      }
    }
    try await waitUntil { queue.load.running == 1 && queue.load.waiting == 2 }
    do {
      _ = try await queue.run(client: "10.0.0.9") { _ in 99 }
      XCTFail("the greedy client has its places")
    } catch {
      XCTAssertEqual(error, .busy)
    }
    let newcomer = Task { try await queue.run(client: "10.0.0.1") { _ in 7 } }
    try await waitUntil { queue.counters.refusedBusy.load(ordering: .relaxed) == 2 }
    for _ in 0..<2 { gate.semaphore.signal() }
    let admitted = try await newcomer.value
    XCTAssertEqual(admitted, 7)
    var outcomes: [String] = []
    for task in greedy {
      do { outcomes.append("\(try await task.value)") } catch { outcomes.append("\(error)") }
    }
    XCTAssertEqual(outcomes, ["0", "1", "busy"], "its newest waiting item gave way")
    XCTAssertEqual(queue.counters.refusedBusy.load(ordering: .relaxed), 2)
  }

  func testACancelledRequestLeavesTheQueueAtOnce() async throws {
    let queue = BoundedWorkQueue(name: "test", threads: 1, queueLimit: 1, timeoutSeconds: 60)
    defer { queue.stop() }
    let gate = Gate()
    let running = Task { try await queue.run { _ in gate.pass() } }
    try await waitUntil { gate.entered.load(ordering: .relaxed) == 1 }
    let waiting = Task { try await queue.run { _ in 1 } }
    try await waitUntil { queue.load.waiting == 1 }
    waiting.cancel()
    do {
      _ = try await waiting.value
      XCTFail("cancelled")
    } catch let failure as WorkFailure {
      XCTAssertEqual(failure, .cancelled)
    }
    XCTAssertEqual(queue.load.waiting, 0, "its place is free again")
    let next = Task { try await queue.run { _ in 2 } }
    gate.semaphore.signal()
    try await running.value
    let value = try await next.value
    XCTAssertEqual(value, 2)
  }

  /// A history query whose client goes away is interrupted in SQLite, not run to its end.
  func testARunningHistoryQueryIsInterruptedWhenCancelledAndPastItsTimeLimit() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("nq-readers-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("history.db").path
    _ = try HistoryDatabase.openForWriting(path: path)
    let readers = HistoryReaders(path: path, threads: 1, queueLimit: 1)
    defer { readers.queue.stop() }
    // A query of about forever (a recursive count to 10^12).
    let endless =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
      + "SELECT count(*) FROM n WHERE i < 1000000000000"
    let task = Task { try await readers.read { db in try Int.fetchOne(db, sql: endless) } }
    try await waitUntil { readers.queue.load.running == 1 }
    try await Task.sleep(for: .milliseconds(50))
    let clock = ContinuousClock()
    let cancelled = clock.now
    task.cancel()
    do {
      _ = try await task.value
      XCTFail("interrupted")
    } catch let failure as WorkFailure {
      XCTAssertEqual(failure, .cancelled)
    }
    XCTAssertLessThan(clock.now - cancelled, .seconds(1))
    XCTAssertEqual(readers.queue.counters.cancelled.load(ordering: .relaxed), 1)

    let short = BoundedWorkQueue(name: "test", threads: 1, queueLimit: 0, timeoutSeconds: 0.2)
    defer { short.stop() }
    let limited = HistoryReaders(path: path, queue: short)
    do {
      _ = try await limited.read { db in try Int.fetchOne(db, sql: endless) }
      XCTFail("interrupted")
    } catch {
      XCTAssertEqual(error, .timedOut)
    }
  }
}
