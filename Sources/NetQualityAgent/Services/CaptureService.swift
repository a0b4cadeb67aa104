import Foundation
import Logging
import NetQualityCapture
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import ServiceLifecycle
import Synchronization

/// One capture thread per interface, feeding the shared engine. A capture that fails (the
/// interface vanished) is reported and re-opened every 2 s until the interface returns.
/// libpcap's reads are blocking C calls, so they run on threads of their own, not on the
/// concurrency pool.
public final class CaptureService: Service, Sendable {
  let interfaces: [String]
  let options: LiveCapture.Options
  let state: AgentState
  let logger: Logger
  private let threads = ServiceThreads()
  /// How far each capture has read (a late tick waits for it).
  let progress: CaptureProgress

  /// How long a poll waits for packets before checking for shutdown.
  static let pollMilliseconds: Int32 = 200
  /// A poll's timeout: `pollMilliseconds`, or less so that it ends a millisecond after the
  /// armed window cut's boundary and the block timeout after it (`cutAt`, wall clock), when
  /// that comes sooner: a quiet capture then tells the ticker, a few milliseconds after the
  /// block timeout, that it read everything stamped before the boundary
  /// (`TickService.cutWaitNanoseconds`).
  static func pollTimeoutMilliseconds(now: Int64, cutAt: Int64?) -> Int32 {
    guard let cutAt else { return pollMilliseconds }
    let until =
      cutAt &+ Int64(LiveCapture.blockTimeoutMilliseconds) * 1_000_000 &+ 1_000_000 &- now
    guard until > 0 else { return pollMilliseconds }
    return Int32(min(Int64(pollMilliseconds), (until + 999_999) / 1_000_000))
  }

  /// Delay between attempts to re-open a capture that failed.
  static let reopenSeconds = 2.0

  public init(interfaces: [String], options: LiveCapture.Options, state: AgentState, logger: Logger)
  {
    self.interfaces = interfaces
    self.options = options
    self.state = state
    self.logger = logger
    progress = CaptureProgress(captures: interfaces.count)
  }

  /// Opens every capture once, so a wrong interface or missing permission fails the start with
  /// its one-line error instead of being retried forever.
  public static func openAll(_ interfaces: [String], options: LiveCapture.Options)
    throws(CaptureError) -> [LiveCapture]
  {
    guard interfaces.count <= EngineConfiguration.maxCaptureInterfaces else {
      throw .tooManyInterfaces(
        count: interfaces.count, limit: EngineConfiguration.maxCaptureInterfaces)
    }
    var captures: [LiveCapture] = []
    for interface in interfaces {
      captures.append(try LiveCapture(interface: interface, options: options))
    }
    return captures
  }

  public func run() async throws {
    state.update { $0.ready = true }
    await threads.run(
      interfaces.enumerated().map { index, interface in
        (name: "capture \(interface)", body: { self.captureLoop(interface, index: index) })
      })
    logger.info("captures closed")
  }

  private func captureLoop(_ interface: String, index position: Int) {
    let index = UInt8(truncatingIfNeeded: position)
    defer { progress.idle(position) }
    var capture: LiveCapture?
    var lastFailure: String?
    var linkUp: Bool?
    let clock = ContinuousClock()
    var nextLinkCheck = clock.now
    // The kernel's drop count at the last look (nil: none yet on this capture), and the blind
    // spans found so far (`reportBlindSpan`).
    var droppedBefore: UInt64?
    var blindSpans: Int64 = 0
    var blindChecks = 0
    while !threads.isStopping {
      // The link state (a sysfs open and read) and the kernel's statistics (a getsockopt and
      // the shared state's lock) once per poll interval, not once per batch of packets: under
      // load that cost twice the packets' own work.
      let housekeeping = clock.now >= nextLinkCheck
      if housekeeping {
        watchLink(interface, index: index, previous: &linkUp)
        nextLinkCheck = clock.now.advanced(by: .milliseconds(Int(Self.pollMilliseconds)))
      }
      if capture == nil {
        do {
          capture = try LiveCapture(interface: interface, options: options)
          logger.info(
            "capturing", metadata: ["interface": "\(interface)", "filter": "\(options.filter)"])
          lastFailure = nil
        } catch {
          if lastFailure != error.description {
            logger.error("\(error.description); retrying every \(Self.reopenSeconds) s")
            lastFailure = error.description
          }
          markInterface(interface, capturing: false, statistics: nil)
          progress.idle(position)
          Thread.sleep(forTimeInterval: Self.reopenSeconds)
          continue
        }
      }
      guard let live = capture else { continue }
      // Before reading on: drops the kernel counted since the last look leave a gap in what is
      // read next, which the analyzer then takes for a blind span, not for silence or loss
      // (`CaptureBlindness`).
      func lookForDrops() {
        let statistics = live.statistics()
        if let dropped = statistics?.dropped {
          if let before = droppedBefore, dropped > before {
            let now = WallClock.now()
            state.capture.withLock { $0.noticeCaptureDrops(interface: index, at: now) }
            blindChecks = Self.blindSpanChecks
          }
          droppedBefore = dropped
        }
        markInterface(interface, capturing: true, statistics: statistics)
      }
      if housekeeping { lookForDrops() }
      do {
        // Wait outside the lock so the ticker and other captures get the analyzer meanwhile.
        let polled = WallClock.now().nanosecondsSinceEpoch
        let cut = state.capture.withLock(\.armedCutWallClockNanoseconds)
        let timeout = Self.pollTimeoutMilliseconds(now: polled, cutAt: cut)
        // The ring hands packets over in blocks, each at most `blockTimeoutMilliseconds` after
        // its first packet: what was stamped that long before a poll began is readable by then.
        let blockNanoseconds = Int64(LiveCapture.blockTimeoutMilliseconds) * 1_000_000
        if try live.waitForPackets(timeoutMilliseconds: timeout) {
          // A wait far longer than its timeout: the agent was stopped (SIGSTOP, a VM paused)
          // and the ring may have overflowed meanwhile. Look at the drops now, before this
          // read takes the ring's content and what came after the gap (and with it the tick's
          // cut): a tick cut without the notice would take the gap for silence.
          let waited = WallClock.now().nanosecondsSinceEpoch - polled
          if waited > (Int64(timeout) + Self.stalledAfterMilliseconds) * 1_000_000 {
            lookForDrops()
          }
          try state.capture.withLock { (analyzer: inout StreamAnalyzer) throws(CaptureError) in
            _ = try live.dispatch(into: &analyzer, interfaceIndex: index)
          }
          // A dispatch reads every packet readable: all stamped a block's time before the poll.
          progress.drained(position, since: polled - blockNanoseconds)
          if blindChecks > 0 {
            blindChecks -= 1
            reportBlindSpan(interface, index: index, seen: &blindSpans)
          }
        } else {
          // Nothing readable at the end of the wait: all stamped a block's time before it came.
          progress.drained(
            position, since: WallClock.now().nanosecondsSinceEpoch - blockNanoseconds)
        }
      } catch {
        logger.error("\(error.description); re-opening when it returns")
        capture = nil
        droppedBefore = nil
      }
    }
    if let live = capture {
      markInterface(interface, capturing: false, statistics: live.statistics())
    }
  }

  /// A poll that returned this much later than its timeout was stalled (the agent stopped).
  static let stalledAfterMilliseconds: Int64 = 500

  /// Reads after new drops that look for the blind span they left (the gap is among the first
  /// packets read after them; a look takes the capture's lock once).
  static let blindSpanChecks = 50

  /// Logs a blind span the last read found on `interface` (`CaptureBlindness`): when the
  /// capture saw nothing, and that no silence or loss of a peer was counted across it.
  private func reportBlindSpan(_ interface: String, index: UInt8, seen: inout Int64) {
    let (latest, count) = state.capture.withLock { $0.captureBlindSpan(interface: index) }
    guard count != seen else { return }
    seen = count
    guard let latest, let end = latest.to else { return }
    let seconds = (end.seconds(since: latest.from) * 10).rounded() / 10
    logger.warning(
      "capture on \(interface) was blind for \(seconds) s (the kernel dropped its packets: the agent was stopped or fell behind); no peer's silence or loss is counted across it",
      metadata: [
        "from": "\(latest.from.secondsSinceEpoch)", "to": "\(end.secondsSinceEpoch)",
      ])
  }

  /// Reports a link that went down or came back at once: the engine marks the peers reached
  /// through it down from the next tick instead of after 12 s of silence.
  private func watchLink(_ interface: String, index: UInt8, previous: inout Bool?) {
    guard let up = LinkState.isUp(interface), up != previous else { return }
    let first = previous == nil
    previous = up
    updateInterface(interface) { $0.linkUp = up }
    if first && up { return }
    let now = WallClock.now()
    // The peers' link_down/link_up events reach the next tick's sinks (log, history, ...).
    let corrected = state.capture.withLock { $0.correctedWallClock(now) }
    let peers = state.scorer.withLock {
      $0.linkChanged(interface: index, up: up, at: corrected).count
    }
    if up {
      logger.info("link up on \(interface) (\(peers) peers reached through it)")
    } else {
      logger.error(
        "link down on \(interface): network down for the \(peers) peers reached through it")
    }
  }

  private func markInterface(
    _ interface: String, capturing: Bool, statistics: LiveCapture.Statistics?
  ) {
    updateInterface(interface) { entry in
      entry.capturing = capturing
      if let statistics {
        entry.receivedPackets = statistics.received
        entry.droppedPackets = statistics.dropped
        entry.interfaceDroppedPackets = statistics.interfaceDropped
      }
    }
  }

  /// Changes what the metrics say about `interface`, creating its entry on first use.
  private func updateInterface(
    _ interface: String, _ change: (inout CaptureInterfacesCollector.Interface) -> Void
  ) {
    state.update { published in
      var entry =
        published.interfaces[interface]
        ?? CaptureInterfacesCollector.Interface(
          name: interface, capturing: false, linkUp: nil, receivedPackets: 0, droppedPackets: 0,
          interfaceDroppedPackets: 0)
      change(&entry)
      published.interfaces[interface] = entry
    }
  }

}
