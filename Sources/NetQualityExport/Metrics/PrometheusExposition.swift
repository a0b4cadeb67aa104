import NetQualityCore

/// The agent's state as Prometheus text exposition format 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/), rendered at scrape time
/// from the latest tick (the collector pattern): names prefixed `netquality_`, base units,
/// counters ending in `_total`, label values escaped.
public struct PrometheusExposition {
  /// One capture interface as the agent sees it.
  public struct Interface: Sendable, Equatable {
    public var name: String
    public var capturing: Bool
    public var linkUp: Bool?
    public var receivedPackets: UInt64
    public var droppedPackets: UInt64
    public var interfaceDroppedPackets: UInt64

    public init(
      name: String, capturing: Bool, linkUp: Bool?, receivedPackets: UInt64, droppedPackets: UInt64,
      interfaceDroppedPackets: UInt64
    ) {
      self.name = name
      self.capturing = capturing
      self.linkUp = linkUp
      self.receivedPackets = receivedPackets
      self.droppedPackets = droppedPackets
      self.interfaceDroppedPackets = interfaceDroppedPackets
    }
  }

  /// The HTTP server's connections: open now, and closed to make room, refused, timed out,
  /// for pipelining too deep, or because the client stopped reading its answers.
  public struct HTTPConnections: Sendable, Equatable {
    public var open: Int
    public var evicted: Int64
    public var refused: Int64
    public var timedOut: Int64
    public var pipelining: Int64
    public var notReading: Int64

    public init(
      open: Int, evicted: Int64, refused: Int64, timedOut: Int64, pipelining: Int64 = 0,
      notReading: Int64 = 0
    ) {
      self.open = open
      self.evicted = evicted
      self.refused = refused
      self.timedOut = timedOut
      self.pipelining = pipelining
      self.notReading = notReading
    }
  }

  public var snapshot: Snapshot?
  /// The time at each level and the worst of the last minute of the peers with series of their
  /// own (`Scorer.levelCounters(of:)`), by name.
  public var peerCounters: [String: PeerLevelCounters] = [:]
  /// Every alert rule in effect, for `alerts_fired_total` (0 until a rule fires).
  public var alertRules: [(name: String, severity: String)] = []
  public var http: HTTPConnections?
  public var alerts: [Alert] = []
  public var interfaces: [Interface] = []
  public var capture = CaptureCounters()
  public var trackedStreams = 0
  /// Slots of the engine's stream arrays: live streams plus free slots awaiting reuse.
  public var streamSlots = 0
  /// The last tick's phases and how long each took, seconds (harvest, score, publish).
  public var tickDurations: [(phase: String, seconds: Double)] = []
  /// Tick boundaries passed without a tick since the start, and how late the last tick started.
  public var ticksSkipped: Int64 = 0
  public var tickLatenessSeconds = 0.0
  public var perStream = false
  public var maxStreamSeries = 1000
  /// Peers with series of their own (the worst, after the pinned ones); the others are
  /// counted in the fleet series only.
  public var maxPeerSeries = 200
  /// Peers always given series of their own: the configured peer groups.
  public var pinnedPeers: Set<String> = []
  /// The snapshot's peers' indices worst first, when already sorted (see `seriesPeers`).
  public var worstOrder: [Int]?
  public var configReloadSuccessful = true
  public var configReloadTime: Double?
  public var version = ""
  public var probeSenders = ProbeSenderCollector(senders: [])
  public var reflector: ReflectorCollector?
  public var storage: StorageCollector?
  public var dashboard: DashboardCollector?
  public var web: WebSecurityCollector?
  public var alertmanager: AlertmanagerCollector?

  public init() {}

  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// The exposition; `renderSeconds` (the previous scrape's render time) is exported too.
  /// `tickSection` is `renderTickSection()` of the same tick, rendered once when the tick was
  /// published (the agent caches it); nil renders it now.
  public func render(previousRenderSeconds: Double?, tickSection: String? = nil) -> String {
    var out = MetricsWriter()
    out.family(.buildInfo)
    out.sample(.buildInfo, [("version", version)], 1)
    out.append(tickSection ?? renderTickSection())
    interfaceMetrics(into: &out)
    engineMetrics(into: &out)
    probeSenders.collect(into: &out)
    reflector?.collect(into: &out)
    storage?.collect(into: &out)
    dashboard?.collect(into: &out)
    web?.collect(into: &out)
    alertmanager?.collect(into: &out)

    out.family(.configLastReloadSuccessful)
    out.sample(.configLastReloadSuccessful, [], configReloadSuccessful ? 1 : 0)
    if let configReloadTime {
      out.family(.configLastReloadSuccessTimestampSeconds)
      out.sample(.configLastReloadSuccessTimestampSeconds, [], configReloadTime)
    }
    if let previousRenderSeconds {
      out.family(.scrapeDurationSeconds)
      out.sample(.scrapeDurationSeconds, [], previousRenderSeconds)
    }
    if let http {
      out.family(.httpConnections)
      out.sample(.httpConnections, [], Double(http.open))
      out.family(.httpConnectionsClosedTotal)
      for (reason, count) in [
        ("evicted", http.evicted), ("refused", http.refused), ("timeout", http.timedOut),
        ("pipelining", http.pipelining), ("not_reading", http.notReading),
      ] {
        out.sample(.httpConnectionsClosedTotal, [("reason", reason)], Double(count))
      }
    }
    return out.text
  }

  /// What changes only at a tick (`TickMetrics`).
  public func renderTickSection() -> String {
    TickMetrics(
      snapshot, alerts: alerts,
      settings: .init(
        perStream: perStream, maxStreamSeries: maxStreamSeries, maxPeerSeries: maxPeerSeries,
        pinnedPeers: pinnedPeers, alertRules: alertRules),
      worstOrder: worstOrder, levelCounters: { _ in peerCounters }
    ).render()
  }

  private func interfaceMetrics(into out: inout MetricsWriter) {
    out.family(.captureUp)
    for interface in interfaces {
      out.sample(
        .captureUp, [("interface", interface.name)], interface.capturing ? 1 : 0)
    }
    out.family(.linkUp)
    for interface in interfaces {
      if let up = interface.linkUp {
        out.sample(.linkUp, [("interface", interface.name)], up ? 1 : 0)
      }
    }
    out.family(.captureReceivedPacketsTotal)
    for interface in interfaces {
      out.sample(
        .captureReceivedPacketsTotal, [("interface", interface.name)],
        Double(interface.receivedPackets))
    }
    out.family(.captureDroppedPacketsTotal)
    for interface in interfaces {
      out.sample(
        .captureDroppedPacketsTotal, [("interface", interface.name)],
        Double(interface.droppedPackets))
    }
    out.family(.captureInterfaceDroppedPacketsTotal)
    for interface in interfaces {
      out.sample(
        .captureInterfaceDroppedPacketsTotal, [("interface", interface.name)],
        Double(interface.interfaceDroppedPackets))
    }
  }

  private func engineMetrics(into out: inout MetricsWriter) {
    out.family(.streams)
    out.sample(.streams, [], Double(trackedStreams))
    out.family(.streamSlots)
    out.sample(.streamSlots, [], Double(streamSlots))
    out.family(.tickDurationSeconds)
    for (phase, seconds) in tickDurations {
      out.sample(.tickDurationSeconds, [("phase", phase)], seconds)
    }
    out.family(.ticksSkippedTotal)
    out.sample(.ticksSkippedTotal, [], Double(ticksSkipped))
    out.family(.tickLatenessSeconds)
    out.sample(.tickLatenessSeconds, [], tickLatenessSeconds)
    out.family(.packetsTotal)
    out.sample(.packetsTotal, [], Double(capture.frames))
    out.family(.rtcpPacketsTotal)
    out.sample(.rtcpPacketsTotal, [], Double(capture.rtcpPackets))
    // Every reason, 0 until it happens, so that rate() and increase() see the first error
    // (https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics).
    out.family(.decodeErrorsTotal)
    for reason in MalformedReason.allCases {
      out.sample(
        .decodeErrorsTotal, [("reason", reason.rawValue)],
        Double(capture.decodeErrors[reason.rawValue] ?? 0))
    }
    out.family(.truncatedPacketsTotal)
    out.sample(.truncatedPacketsTotal, [], Double(capture.truncated))
    out.family(.captureClockStepsTotal)
    out.sample(.captureClockStepsTotal, [], Double(capture.clockSteps))
    out.family(.captureOutOfOrderTimestampsTotal)
    out.sample(
      .captureOutOfOrderTimestampsTotal, [], Double(capture.outOfOrderTimestamps))
    out.family(.captureBadTimestampRecordsTotal)
    out.sample(.captureBadTimestampRecordsTotal, [], Double(capture.badTimestampRecords))
  }
}
