import NetQualityConfig
import NetQualityCore
import NetQualityProbe

/// The probe targets' reconciliation: a configuration's targets made the ones probed, at start
/// and on every reload.
extension ProbeService {
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
    wake.signal()
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
}
