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
}
