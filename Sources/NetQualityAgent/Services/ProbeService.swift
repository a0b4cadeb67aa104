import Foundation
import Glibc
import Logging
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import ServiceLifecycle
import Synchronization

/// The agent's STAMP side: one thread sends to every probe target and reads the answers,
/// handing the settled probes to the engine; another answers other senders' probes when the
/// reflector is enabled. Plain non-blocking sockets and poll(2), on threads of their own like
/// the captures.
///
/// The targets are the configuration's `probes`, applied at start and on every reload
/// (`apply`, through `LiveConfiguration`): added targets start, removed ones stop, changed ones
/// start a new session; the engine learns of each change in the same step (`ProbeTargets`).
public final class ProbeService: Service, Sendable {
  /// What the service opens at start: the reflector's socket, so that a port in use or a key
  /// file that cannot be read fails the start with its one-line error.
  public struct Plan: Sendable {
    var reflector: Opened<Reflector>?

    public var isEmpty: Bool { reflector == nil }
  }

  /// A configuration's probe targets with their key files read: made before anything changes,
  /// so that a key file that cannot be read fails the start, or refuses the reload whole.
  public struct Prepared: Sendable {
    var targets: [(settings: ProbeTargetSettings, options: STAMPSender.Options)] = []
  }

  /// A socket shell opened on the starting thread and used by one other thread after.
  final class Opened<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
  }

  let plan: Plan
  let state: AgentState
  let logger: Logger
  let targets = ProbeTargets()
  private let threads = ServiceThreads()
  /// Wakes the probe thread when a reload changed the targets (a non-blocking pipe; -1 if
  /// none could be had: the thread then sees the change within `pollMilliseconds`).
  private let wakeDescriptor: Int32
  private let wakeWriteDescriptor: Int32

  /// How long a wait lasts at most before the stop flag is looked at again.
  static let pollMilliseconds: Int64 = 100
  /// How often the senders' counters are published for /metrics (a scrape is seconds apart;
  /// publishing every pass of a thousand targets would cost more than the probing).
  static let publishIntervalNanoseconds: Int64 = 250_000_000
  /// A pass of the loop looks at every target: at least this long per target between passes,
  /// so that answers arriving one by one cannot make a thousand targets' loop spin (their
  /// receive times are the kernel's, so a short wait changes no measurement).
  static let passSpacingNanosecondsPerTarget: Int64 = 1_000
  /// Settled probes the loop keeps while the tick holds the scorer (`recordPending`) before it
  /// waits for it after all: over three seconds of 1,000 targets at 20/s.
  static let pendingSamplesLimit = 65_536

  public init(plan: Plan, state: AgentState, logger: Logger) {
    self.plan = plan
    self.state = state
    self.logger = logger
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
      for end in ends {
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      }
    }
    (wakeDescriptor, wakeWriteDescriptor) = (ends[0], ends[1])
    threads.whenStopping { [wakeWriteDescriptor] in Self.signal(wakeWriteDescriptor) }
  }

  deinit {
    if wakeDescriptor >= 0 { close(wakeDescriptor) }
    if wakeWriteDescriptor >= 0 { close(wakeWriteDescriptor) }
  }

  /// The plan of a configuration: the reflector's socket bound (the probe targets are
  /// `prepare`d and applied by `LiveConfiguration`, at start and on reload alike).
  public static func plan(_ configuration: AgentConfiguration) throws(AgentError) -> Plan {
    var plan = Plan()
    _ = try prepare(configuration.probes)
    let settings = configuration.reflector
    if settings.enabled {
      var reflector = ReflectorConfiguration()
      reflector.allowedNetworks = settings.allow
      reflector.ratePerSourcePacketsPerSecond = settings.rateLimitPerSecond
      reflector.burstPerSourcePackets = Double(settings.burst)
      reflector.errorEstimate = STAMPErrorEstimate(
        seconds: ReflectorConfiguration.defaultErrorSeconds,
        isSynchronized: settings.clockSynchronized)
      if !settings.authKeyFile.isEmpty {
        do {
          reflector.keys = try STAMPKeyFile.load(path: settings.authKeyFile)
        } catch {
          throw AgentError.probes("reflector: \(error.description)")
        }
      }
      do {
        plan.reflector = Opened(try Reflector(configuration: reflector, listen: settings.listen))
      } catch {
        throw AgentError.probes("reflector on \(settings.listen): \(error.description)")
      }
    }
    return plan
  }

  /// The senders' options of `probes`, each target's key read from its file.
  public static func prepare(_ probes: [ProbeTargetSettings]) throws(AgentError) -> Prepared {
    var prepared = Prepared()
    for settings in probes {
      var options = STAMPSender.Options(target: settings.target)
      options.ratePerSecond = settings.ratePerSecond
      options.sizeBytes = settings.sizeBytes
      options.dscp = UInt8(clamping: settings.dscp)
      options.timeoutSeconds = settings.timeoutSeconds
      if !settings.authKeyFile.isEmpty {
        do {
          options.key = try STAMPKeyFile.load(path: settings.authKeyFile).first
        } catch {
          throw AgentError.probes("probe \(settings.target): \(error.description)")
        }
      }
      prepared.targets.append((settings, options))
    }
    return prepared
  }

  /// Makes `prepared` the targets probed: a target already probed with the same options goes
  /// on untouched (its name may change), one with other options starts a new STAMP session
  /// (a new socket: the reflector numbers it from 0), a new one starts (spread over its first
  /// interval), one no longer configured stops sending and retires once its probes in flight
  /// have settled. `reconfigureEngine` gives the engine the targets running, here in the same
  /// step and again whenever a retiring target goes (see `ProbeTargets`).
  func apply(
    _ prepared: Prepared,
    reconfigureEngine: @escaping @Sendable ([ProbeTargetSettings]) -> Void
  ) {
    let now = WallClock.now()
    var started: [String] = []
    var restarted: [String] = []
    var stopping: [String] = []
    var failed: [String] = []
    targets.withLock { set in
      recordPending(&set, waiting: true)  // the old sessions' probes, before any restart
      var previous: [Endpoint: ProbeTargets.Running] = [:]
      for running in set.running { previous[running.settings.target] = running }
      let configured = Set(prepared.targets.map(\.settings.target))
      let newCount = prepared.targets.count(where: { previous[$0.settings.target] == nil })
      var newIndex = 0
      var next: [ProbeTargets.Running] = []
      for (settings, options) in prepared.targets {
        if var running = previous[settings.target], running.sender.options.sendsLike(options) {
          running.settings = settings
          running.retiringUntil = nil
          next.append(running)
          continue
        }
        let isNew = previous[settings.target] == nil
        // New targets spread over their first interval, so that a reload adding a hundred
        // does not send a hundred probes at once.
        let phase = isNew ? Double(newIndex) / Double(max(1, newCount)) / options.ratePerSecond : 0
        if isNew { newIndex += 1 }
        do throws(SocketError) {
          let sender = try STAMPSender(options: options, phaseSeconds: phase)
          next.append(ProbeTargets.Running(settings: settings, sender: sender, retiringUntil: nil))
          if isNew {
            started.append(settings.target.description)
          } else {
            restarted.append(settings.target.description)
            state.scorer.withLock { $0.restartProbeSession(settings.target) }
          }
        } catch {
          failed.append("probe \(settings.target): \(error.description)")
          // A changed target whose new socket cannot be had goes on as it was.
          if var running = previous[settings.target] {
            running.retiringUntil = nil
            next.append(running)
          }
        }
      }
      for var running in set.running where !configured.contains(running.settings.target) {
        if running.retiringUntil == nil {
          running.retiringUntil = now.advanced(
            bySeconds: running.sender.options.timeoutSeconds + 1)
          stopping.append(running.settings.target.description)
        }
        next.append(running)
      }
      set.running = next
      set.generation += 1
      set.reconfigureEngine = reconfigureEngine
      reconfigureEngine(set.engineTargets)
    }
    Self.signal(wakeWriteDescriptor)
    for line in failed { logger.error("\(line)") }
    if !started.isEmpty || !restarted.isEmpty || !stopping.isEmpty {
      logger.info(
        "probe targets changed",
        metadata: [
          "started": "\(started.count)", "restarted": "\(restarted.count)",
          "stopping": "\(stopping.count)",
          "targets": .string((started + restarted + stopping).prefix(10).joined(separator: ",")),
        ])
    }
  }

  public func run() async throws {
    var bodies: [(name: String, body: @Sendable () -> Void)] = [
      ("probes", { self.probeLoop() })
    ]
    if let reflector = plan.reflector {
      bodies.append(("reflector", { self.reflectorLoop(reflector.value) }))
    }
    await threads.run(bodies)
  }

  // MARK: The probe thread

  /// What the loop keeps between passes.
  private struct LoopState {
    /// The wake descriptor first, then one per running target in `ProbeTargets` order.
    var descriptors: [pollfd] = []
    var generation = -1
    var lastPublished: Int64?
    /// How late each probe left after its scheduled time (agent-wide).
    var lateness = DelayHistogram(boundsSeconds: ProbeSenderCollector.sendLatenessBoundsSeconds)
  }

  private func probeLoop() {
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
      loop.descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
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
  private func recordPending(_ set: inout ProbeTargets.State, waiting: Bool) {
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
    if loop.descriptors[0].revents != 0 {
      var drained = [UInt8](repeating: 0, count: 64)
      while read(wakeDescriptor, &drained, drained.count) > 0 {}
    }
  }

  private static func signal(_ descriptor: Int32) {
    guard descriptor >= 0 else { return }
    var one: UInt8 = 1
    _ = write(descriptor, &one, 1)
  }

  // MARK: The reflector thread

  private func reflectorLoop(_ reflector: Reflector) {
    logger.info("reflecting", metadata: ["listen": "\(reflector.socket.localEndpoint)"])
    while !threads.isStopping {
      do {
        if try reflector.socket.waitUntilReadable(timeoutMilliseconds: 100) {
          try reflector.serveWaiting()
        }
      } catch {
        logger.error("reflector: \(error.description)")
        Thread.sleep(forTimeInterval: 1)
      }
      let counters = reflector.counters
      state.update { $0.reflector = counters }
    }
  }
}
