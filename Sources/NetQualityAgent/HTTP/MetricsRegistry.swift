import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore

/// What `/metrics` is made of: each subsystem's collector (`NetQualityExport/Metrics`), built
/// here from the subsystem at scrape time, in the order of `MetricCatalogue.collectors`; the
/// tick's part as the ticker rendered it (`TickMetrics`, once per tick). A subsystem whose
/// families are absent (no reflector, the history off, no Alertmanager) has no collector.
enum MetricsRegistry {
  /// `http` is the HTTP server's connection counters, `security` its web configuration.
  static func collectors(
    _ state: AgentState, http: ConnectionRegistry.Counters?, security: WebSecurity?
  ) -> [any MetricsCollector] {
    // What the ticker and the services published, read under one lock: one moment's view.
    var fromTick: [any MetricsCollector] = []
    var fromStatus: [any MetricsCollector] = []
    state.read { published in
      fromTick = [
        // Rendered at the tick; rendered now only where a tick was published without it.
        TickMetrics.Rendered(
          published.tickMetrics
            ?? TickMetrics(
              published.lastTick?.snapshot, alerts: published.alerts, settings: published.metrics
            ).render()),
        CaptureInterfacesCollector(
          interfaces: published.interfaces.values.sorted { $0.name < $1.name }),
        EngineCollector(published),
        ProbeSenderCollector(published.probeSenders, lateness: published.probeSendLateness),
      ]
      if let reflector = published.reflector { fromTick.append(ReflectorCollector(reflector)) }
      fromStatus = [
        ConfigurationCollector(
          lastReloadSuccessful: published.status.lastReloadSuccessful,
          lastReloadSuccessTime: published.status.lastReloadTime)
      ]
      if let seconds = published.lastRenderSeconds {
        fromStatus.append(ScrapeDurationCollector(previousRenderSeconds: seconds))
      }
    }
    var collectors: [any MetricsCollector] = [
      BuildInfoCollector(
        version: BuildInfo.version, revision: BuildInfo.revision,
        swiftVersion: BuildInfo.swiftVersion)
    ]
    collectors += fromTick
    if let history = state.history, let readers = state.historyReaders {
      collectors.append(StorageCollector(history.counters, reads: readers.queue.counters))
    }
    collectors.append(DashboardCollector(state.dashboardCounters))
    if let security { collectors.append(security.metricsCollector) }
    if let alertmanager = state.alertmanager {
      collectors.append(alertmanager.counters.metricsCollector)
    }
    collectors += fromStatus
    if let http { collectors.append(HTTPConnectionsCollector(http)) }
    collectors.append(ProcessCollector.current())
    return collectors
  }
}

// MARK: The subsystems' figures as collectors (web security and the Alertmanager notifier build
// theirs beside them: `WebSecurity.metricsCollector`, `AlertmanagerNotifier.Counters`)

extension EngineCollector {
  init(_ published: AgentState.Published) {
    let timing = published.tickTiming
    self.init(
      capture: published.capture, trackedStreams: published.trackedStreams,
      streamSlots: published.streamSlots,
      tickDurations: [
        ("harvest", timing.harvestSeconds), ("score", timing.scoreSeconds),
        ("publish", timing.publishSeconds),
      ],
      ticksSkipped: timing.skippedTicks, tickLatenessSeconds: timing.lateSeconds,
      tickCompletion: timing.completion,
      tickPhaseTotals: [
        ("harvest", timing.harvestSecondsTotal), ("score", timing.scoreSecondsTotal),
        ("publish", timing.publishSecondsTotal),
      ])
  }
}

extension ProbeSenderCollector {
  /// The senders' counters by target.
  init(_ senders: [String: STAMPSender.Counters], lateness: DelayHistogram?) {
    self.init(
      senders: senders.sorted { $0.key < $1.key }.map { target, counters in
        Sender(
          target: target,
          refused: [
            ("foreign", counters.foreign), ("malformed", counters.malformed),
            ("bad_hmac", counters.badHMAC), ("unexpected", counters.unexpected),
          ],
          missed: [
            ("loop_late", counters.missedSends), ("window_full", counters.windowFull),
            ("send_buffer_full", counters.sendBufferFull), ("send_error", counters.sendErrors),
          ])
      }, sendLateness: senders.isEmpty ? nil : lateness)
  }
}

extension ReflectorCollector {
  init(_ counters: ReflectorCounters) {
    self.init(
      receivedPackets: Int64(counters.packetsReceived),
      receivedBytes: Int64(counters.bytesReceived),
      reflectedPackets: Int64(counters.packetsReflected),
      reflectedBytes: Int64(counters.bytesReflected),
      refused: ReflectorRefusal.allCases.map { ($0.rawValue, Int64(counters.refused($0))) },
      sessions: Int64(counters.sessionsActive),
      userSpaceTimestamps: Int64(counters.userSpaceTimestamps),
      sendErrors: Int64(counters.sendErrors))
  }
}

extension StorageCollector {
  /// The history writer's counters, and its readers' for the HTTP API and the status page.
  init(_ counters: HistoryRecorder.Counters, reads: BoundedWorkQueue.Counters) {
    self.init(
      ticksWritten: counters.ticksWritten, rowsWritten: counters.rowsWritten,
      ticksDropped: counters.ticksDropped,
      errors: Dictionary(
        uniqueKeysWithValues: counters.errors.map { ($0.key.rawValue, $0.value) }),
      errorKinds: HistoryFault.Kind.allCases.map(\.rawValue),
      filesMovedAside: counters.filesMovedAside, filesReplaced: counters.filesReplaced,
      writeSecondsSum: counters.writeSecondsSum,
      writeSecondsMax: counters.writeSecondsMax,
      maintenanceSecondsSum: counters.maintenanceSecondsSum,
      databaseBytes: counters.databaseBytes, queueLength: counters.queueLength,
      healthy: counters.fault == nil,
      reads: Reads(
        answered: Int64(reads.completed.load(ordering: .relaxed)),
        busy: Int64(reads.refusedBusy.load(ordering: .relaxed)),
        cancelled: Int64(reads.cancelled.load(ordering: .relaxed)),
        timedOut: Int64(reads.timedOut.load(ordering: .relaxed))))
  }
}

extension DashboardCollector {
  init(_ counters: DashboardOutput.Counters) {
    self.init(
      failedWrites: Int64(counters.failedWrites.load(ordering: .relaxed)),
      rotations: Int64(counters.rotations.load(ordering: .relaxed)),
      rotationFailures: Int64(counters.rotationFailures.load(ordering: .relaxed)))
  }
}

extension HTTPConnectionsCollector {
  init(_ counters: ConnectionRegistry.Counters) {
    self.init(
      open: counters.open, evicted: counters.evicted, refused: counters.refused,
      timedOut: counters.timedOut, pipelining: counters.pipelining,
      notReading: counters.notReading)
  }
}
