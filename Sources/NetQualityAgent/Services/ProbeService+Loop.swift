import Glibc
import NetQualityCore
import NetQualityExport
import NetQualityProbe

/// The probe thread: one loop sends to every target, reads the answers, settles the probes and
/// hands them to the engine, under the targets' lock, then waits on every socket at once.
extension ProbeService {
  /// What the loop keeps between passes.
  struct LoopState {
    /// The wake descriptor first, then one per running target in `ProbeTargets` order.
    var descriptors: [pollfd] = []
    var generation = -1
    var lastPublished: Int64?
    /// How late each probe left after its scheduled time (agent-wide).
    var lateness = DelayHistogram(boundsSeconds: ProbeSenderCollector.sendLatenessBoundsSeconds)
  }

  func probeLoop() {
    var loop = LoopState()
    targets.withLock { $0.pendingSamples.reserveCapacity(256) }
    while !threads.isStopping {
      let passStart = WallClock.monotonicNow()
      let waitNanoseconds = targets.withLock { set in pass(&set, &loop, monotonic: passStart) }
      wait(&loop, passStart: passStart, dueInNanoseconds: waitNanoseconds)
    }
  }

  /// One look at every target: send what is due, read what is waiting, settle, record, retire;
  /// returns how long until something is due. Runs under the targets' lock.
  private func pass(
    _ set: inout ProbeTargets.State, _ loop: inout LoopState, monotonic: CaptureTime
  ) -> Int64 {
    let now = WallClock.now()
    let rebuilt = set.generation != loop.generation
    if rebuilt {
      loop.descriptors = [pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)]
      for running in set.running {
        loop.descriptors.append(
          pollfd(fd: running.sender.socket.descriptor, events: Int16(POLLIN), revents: 0))
      }
      loop.generation = set.generation
    }
    for (index, running) in set.running.enumerated() {
      let sender = running.sender
      if running.retiringUntil == nil, let late = sender.sendIfDue(monotonicNow: monotonic) {
        loop.lateness.add(Double(late) * 1e-9)
      }
      // Only the sockets poll(2) found readable (all of them after a change of the set).
      if rebuilt || loop.descriptors[index + 1].revents != 0 {
        do {
          try sender.receiveAnswers { set.pendingSamples.append($0) }
        } catch {
          logger.error("probe \(sender.options.target): \(error.description)")
        }
      }
      sender.settle(now: now) { set.pendingSamples.append($0) }
    }
    recordPending(&set, waiting: false)
    retire(&set, now: now)
    let sincePublished = loop.lastPublished.map { monotonic.nanosecondsSinceEpoch - $0 }
    if set.generation != loop.generation
      || sincePublished.map({ $0 >= Self.publishIntervalNanoseconds }) ?? true
    {
      publish(set, lateness: loop.lateness)
      loop.lastPublished = monotonic.nanosecondsSinceEpoch
    }
    var due = Self.pollMilliseconds * 1_000_000
    for running in set.running {
      due = running.sender.nanosecondsUntilDue(
        sending: running.retiringUntil == nil, monotonicNow: monotonic, now: now, limit: due)
    }
    return due
  }

  /// Hands the settled probes to the engine. A tick scores every peer under the scorer's lock
  /// (with 1,000 targets, tens of milliseconds on a slow machine): a loop waiting for it sent
  /// every probe due meanwhile late, and a wait of one interval (50 ms at 20/s) skips a send of
  /// each target (`loop_late`; a 2-core VM missed 765 of 1.2 M sends that way). So, unless
  /// `waiting` (a change of the set) or the pile has grown past `pendingSamplesLimit`, the
  /// probes wait for a pass that finds the lock free. Their times are their own, so a probe
  /// handed over a pass later is scored the same (one settled as a tick began went to the
  /// next tick before too: the loop waited for the tick).
  func recordPending(_ set: inout ProbeTargets.State, waiting: Bool) {
    guard !set.pendingSamples.isEmpty else { return }
    let recorded: Void?
    if waiting || set.pendingSamples.count >= Self.pendingSamplesLimit {
      recorded = state.scorer.withLock { scorer in
        for sample in set.pendingSamples { scorer.record(probe: sample) }
      }
    } else {
      recorded = state.scorer.withLockIfAvailable { scorer in
        for sample in set.pendingSamples { scorer.record(probe: sample) }
      }
    }
    if recorded != nil { set.pendingSamples.removeAll(keepingCapacity: true) }
  }

  /// Lets go of the retiring targets whose probes have all settled (or whose time is up): the
  /// engine forgets their sessions and is told the targets left.
  private func retire(_ set: inout ProbeTargets.State, now: CaptureTime) {
    var gone: Set<Endpoint> = []
    for running in set.running {
      guard let until = running.retiringUntil else { continue }
      if running.sender.session.inFlight == 0 || now >= until {
        gone.insert(running.settings.target)
      }
    }
    guard !gone.isEmpty else { return }
    recordPending(&set, waiting: true)
    set.running.removeAll { gone.contains($0.settings.target) }
    set.generation += 1
    state.scorer.withLock { $0.forgetProbeSessions(gone) }
    set.reconfigureEngine?(set.engineTargets)
    logger.info(
      "probe targets stopped",
      metadata: [
        "count": "\(gone.count)",
        "targets": .string(gone.map(\.description).sorted().prefix(10).joined(separator: ",")),
      ])
  }

  private func publish(_ set: ProbeTargets.State, lateness: DelayHistogram) {
    var senders: [String: STAMPSender.Counters] = [:]
    for running in set.running {
      senders[running.settings.target.description] = running.sender.counters
    }
    state.update { published in
      published.probeSenders = senders
      published.probeSendLateness = lateness
    }
  }

  /// Waits until something is due or an answer comes, but at least the pass spacing after the
  /// pass began (a reload's wake-up cuts either wait short).
  private func wait(_ loop: inout LoopState, passStart: CaptureTime, dueInNanoseconds: Int64) {
    let targetCount = Int64(loop.descriptors.count - 1)
    let elapsed =
      WallClock.monotonicNow().nanosecondsSinceEpoch - passStart.nanosecondsSinceEpoch
    let pace = targetCount * Self.passSpacingNanosecondsPerTarget - elapsed
    var remaining = dueInNanoseconds
    if pace > 0 {
      // The spacing: only a reload may cut it short.
      _ = poll(&loop.descriptors, 1, Int32((pace + 999_999) / 1_000_000))
      remaining = max(0, remaining - pace)
    }
    // Rounded up, or a wait under 1 ms would spin; 0 still refreshes which sockets are readable.
    let milliseconds = Int32((remaining + 999_999) / 1_000_000)
    _ = poll(&loop.descriptors, nfds_t(loop.descriptors.count), milliseconds)
    if loop.descriptors[0].revents != 0 { wake.drain() }
  }
}
