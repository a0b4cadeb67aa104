import Foundation
import Synchronization
import XCTest

@testable import NetQualityAgent

/// The reloads' thread: one reload at a time, SIGHUPs during one folded into one more after
/// it, and a stop that never waits for a reload in progress (the agent's shutdown must not).
final class ReloadThreadTests: XCTestCase {
  func testSignalsDuringAReloadFoldIntoOneMoreAndStopDoesNotWait() {
    let reloads = Mutex(0)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let thread = ReloadThread {
      reloads.withLock { $0 += 1 }
      entered.signal()
      release.wait()
      return .init(succeeded: true, lines: [])
    }
    thread.request()
    XCTAssertEqual(entered.wait(timeout: .now() + 5), .success, "the first reload runs")
    // Three more signals while it runs: the file is read once more after it, not three times.
    for _ in 0..<3 { thread.request() }
    release.signal()
    XCTAssertEqual(entered.wait(timeout: .now() + 5), .success, "one more reload")
    release.signal()
    XCTAssertEqual(entered.wait(timeout: .now() + 0.3), .timedOut, "and no third")
    XCTAssertEqual(reloads.withLock { $0 }, 2)

    // A reload that does not end (a file read forever, before reads were bounded) holds
    // neither the next request nor the stop.
    thread.request()
    XCTAssertEqual(entered.wait(timeout: .now() + 5), .success)
    let started = Date()
    thread.request()
    thread.stop()
    XCTAssertLessThan(Date().timeIntervalSince(started), 0.1)
    release.signal()
    XCTAssertEqual(entered.wait(timeout: .now() + 0.3), .timedOut, "stopped: no more reloads")
    XCTAssertEqual(reloads.withLock { $0 }, 3)
  }

  /// `POST /-/reload` waits for the reload that starts after it and gets its outcome.
  func testAnAwaitedReloadGetsItsOutcome() async {
    let count = Mutex(0)
    let thread = ReloadThread {
      let number = count.withLock { value -> Int in
        value += 1
        return value
      }
      return .init(succeeded: number % 2 == 1, lines: ["reload \(number)"])
    }
    let first = await thread.reload()
    XCTAssertEqual(first, .init(succeeded: true, lines: ["reload 1"]))
    let second = await thread.reload()
    XCTAssertEqual(second, .init(succeeded: false, lines: ["reload 2"]))
    thread.stop()
    let stopped = await thread.reload()
    XCTAssertFalse(stopped.succeeded)
  }
}
