import Foundation
import Logging
import NetQualityConfig
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// The probe thread never waits for a tick. A tick scores every peer under the scorer's lock;
/// the loop that waited for that lock to hand over its settled probes sent nothing meanwhile,
/// and a wait of one interval skipped a send of every target (`loop_late`).
final class ProbeLoopTests: XCTestCase {
  /// A loopback port where nothing answers: every probe settles lost after its timeout, so
  /// the loop has probes to hand over on every pass.
  let target = Endpoint(address: IPAddress(ipv4: 127, 0, 0, 63), port: 19863)

  func testSendsGoOnWhileATickHoldsTheScorer() throws {
    var configuration = AgentConfiguration()
    var settings = ProbeTargetSettings(target: target)
    settings.ratePerSecond = 100
    settings.timeoutSeconds = 0.1
    configuration.probes = [settings]
    let state = AgentState(
      engine: Engine(configuration: configuration.engineConfiguration(interfaceNetworks: [])))
    let probes = ProbeService(plan: .init(), state: state, logger: Logger(label: "test"))
    probes.apply(try ProbeService.prepare(configuration.probes), reconfigureEngine: { _ in })
    let thread = Task { try await probes.run() }
    defer { thread.cancel() }
    /// Probes sent to the target so far.
    func sent() -> Int64 {
      probes.targets.withLock { $0.running.first?.sender.session.sentCount ?? 0 }
    }

    // Running, with probes settled (lost) and handed over already.
    let running = expectation(description: "probes settled")
    let poll = Task {
      while !Task.isCancelled {
        if sent() > 30 { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      running.fulfill()
    }
    wait(for: [running], timeout: 30)
    poll.cancel()

    // A tick scoring for a second on another thread (100 sends due): before, the loop
    // stopped at its first settled probe, holding the targets, and sent none of them.
    let held = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      state.scorer.withLock { _ in
        held.signal()
        Thread.sleep(forTimeInterval: 1)
      }
      released.signal()
    }
    held.wait()
    let before = sent()
    Thread.sleep(forTimeInterval: 0.8)
    let during = sent()
    released.wait()
    XCTAssertGreaterThan(during - before, 10, "sends while a tick held the scorer")
    // Handed over once the lock is free: the peer's probes are in the next tick.
    let handedOver = expectation(description: "pending probes recorded")
    let drain = Task {
      while !Task.isCancelled {
        if probes.targets.withLock({ $0.pendingSamples.isEmpty }) { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      handedOver.fulfill()
    }
    wait(for: [handedOver], timeout: 30)
    drain.cancel()
  }

}
