import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore

/// What `/metrics` is made of: each subsystem's collector (`NetQualityExport/Metrics`), built
/// here from the subsystem at scrape time by its registration, in the order of
/// `MetricCatalogue.collectors` (declared there only); the tick's part as the ticker rendered
/// it (`TickMetrics`, once per tick). A subsystem whose families are absent (no reflector, the
/// history off, no Alertmanager) builds no collector.
enum MetricsRegistry {
  /// What a collector is built from: what the ticker and the services published (read under
  /// one lock: one moment's view), the agent's long-lived parts, and the HTTP server's.
  struct Sources {
    var published: AgentState.Published
    var state: AgentState
    /// The HTTP server's connection counters, and its web configuration.
    var http: ConnectionRegistry.Counters?
    var security: WebSecurity?
  }

  typealias Registration = @Sendable (Sources) -> (any MetricsCollector)?

  /// How each catalogued collector is built (nil: its subsystem is off). A new subsystem's
  /// metrics: one line here (see `MetricsCollector`).
  static let registrations: [ObjectIdentifier: Registration] = [
    key(BuildInfoCollector.self): { _ in
      BuildInfoCollector(
        version: BuildInfo.version, revision: BuildInfo.revision,
        swiftVersion: BuildInfo.swiftVersion)
    },
    // Rendered at the tick; rendered now only where a tick was published without it.
    key(TickMetrics.self): { sources in
      let published = sources.published
      return TickMetrics.Rendered(
        published.tickMetrics
          ?? TickMetrics(
            published.lastTick?.snapshot, alerts: published.alerts, settings: published.metrics
          ).render())
    },
    key(CaptureInterfacesCollector.self): { sources in
      CaptureInterfacesCollector(
        interfaces: sources.published.interfaces.values.sorted { $0.name < $1.name })
    },
    key(EngineCollector.self): { EngineCollector($0.published) },
    key(ProbeSenderCollector.self): { sources in
      ProbeSenderCollector(
        sources.published.probeSenders, lateness: sources.published.probeSendLateness)
    },
    key(ReflectorCollector.self): { $0.published.reflector.map(ReflectorCollector.init) },
    key(StorageCollector.self): { sources in
      guard let history = sources.state.history, let readers = sources.state.historyReaders
      else { return nil }
      return StorageCollector(history.counters, reads: readers.queue.counters)
    },
    key(DashboardCollector.self): { DashboardCollector($0.state.dashboardCounters) },
    key(WebSecurityCollector.self): { $0.security?.metricsCollector },
    key(AlertmanagerCollector.self): { $0.state.alertmanager?.counters.metricsCollector },
    key(ConfigurationCollector.self): { sources in
      ConfigurationCollector(
        lastReloadSuccessful: sources.published.status.lastReloadSuccessful,
        lastReloadSuccessTime: sources.published.status.lastReloadTime)
    },
    key(ScrapeDurationCollector.self): { sources in
      sources.published.lastRenderSeconds.map {
        ScrapeDurationCollector(previousRenderSeconds: $0)
      }
    },
    key(HTTPConnectionsCollector.self): { $0.http.map(HTTPConnectionsCollector.init) },
    key(ProcessCollector.self): { _ in ProcessCollector.current() },
  ]

  static func key(_ type: any MetricsCollector.Type) -> ObjectIdentifier { ObjectIdentifier(type) }

  /// The collectors of a scrape, in the order of `/metrics`.
  static func collectors(
    _ state: AgentState, http: ConnectionRegistry.Counters?, security: WebSecurity?
  ) -> [any MetricsCollector] {
    let sources = Sources(
      published: state.read { $0 }, state: state, http: http, security: security)
    return MetricCatalogue.collectors.compactMap { registrations[key($0)]?(sources) }
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
