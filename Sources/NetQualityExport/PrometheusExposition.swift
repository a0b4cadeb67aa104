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
  /// What the HTTP server's reads of the history came to (nil with the history off).
  public var historyReads: HistoryReadFigures?
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
  public var probeSenders: [ProbeSenderFigures] = []
  public var reflector: ReflectorFigures?
  public var storage: StorageFigures?
  /// The kinds of storage errors, each exported (0 until it happens).
  public var storageErrorKinds: [String] = []
  public var dashboard: DashboardFigures?
  public var web: WebFigures?
  public var alertmanager: AlertmanagerFigures?

  public init() {}

  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// The exposition; `renderSeconds` (the previous scrape's render time) is exported too.
  /// `tickSection` is `renderTickSection()` of the same tick, rendered once when the tick was
  /// published (the agent caches it); nil renders it now.
  public func render(previousRenderSeconds: Double?, tickSection: String? = nil) -> String {
    var out = Writer()
    out.family(.buildInfo)
    out.sample(.buildInfo, [("version", version)], 1)
    out.append(tickSection ?? renderTickSection())
    interfaceMetrics(into: &out)
    engineMetrics(into: &out)
    probeSenderMetrics(into: &out)
    reflectorMetrics(into: &out)
    storageMetrics(into: &out, errorKinds: storageErrorKinds)
    historyReadMetrics(into: &out)
    dashboardMetrics(into: &out)
    webMetrics(into: &out)
    alertmanagerMetrics(into: &out)

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

  /// What changes only at a tick: the host and peer levels, the fleet series, the probes, the
  /// opt-in stream series and the alerts. The bulk of the exposition, and the same for every
  /// scrape until the next tick.
  public func renderTickSection() -> String {
    var out = Writer()
    var shownNames: Set<String>?
    if let snapshot {
      out.family(.lastTickTimestampSeconds)
      out.sample(.lastTickTimestampSeconds, [], snapshot.time.secondsSinceEpoch)
      out.family(.hostQualityLevel)
      out.sample(
        .hostQualityLevel, [("direction", "rx")], Double(snapshot.hostRx.rawValue))
      out.sample(
        .hostQualityLevel, [("direction", "tx")], Double(snapshot.hostTx.rawValue))
      let shown = Self.seriesPeers(
        snapshot.peers, limit: maxPeerSeries, pinned: pinnedPeers, worstOrder: worstOrder)
      if shown.count < snapshot.peers.count { shownNames = Set(shown.map(\.peer)) }
      fleet(snapshot.peers, shown: shown.count, into: &out)
      fleetCounters(snapshot.counters, into: &out)
      peers(shown, into: &out)
      peerCounters(shown, into: &out)
      probes(snapshot.peers, into: &out)
      if perStream { streams(snapshot.streams, into: &out) }
    }
    // Every firing alert is counted by rule; the per-alert series only for the peers that have
    // series of their own (and alerts about no peer), within the same budget.
    out.family(.firingAlerts)
    var byRule: [String: (severity: String, count: Int)] = [:]
    for alert in alerts {
      byRule[alert.rule, default: (alert.severity.rawValue, 0)].count += 1
    }
    for (rule, entry) in byRule.sorted(by: { $0.key < $1.key }) {
      out.sample(
        .firingAlerts, [("alertname", rule), ("severity", entry.severity)],
        Double(entry.count))
    }
    out.family(.alertsFiring)
    for alert in alerts.sorted(by: { $0.id < $1.id }) {
      if let shownNames, let peer = alert.labels["peer"], !shownNames.contains(peer) { continue }
      var labels = [("alertname", alert.rule), ("severity", alert.severity.rawValue)]
      labels += alert.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
      out.sample(.alertsFiring, labels, 1)
    }
    return out.text
  }

  private func peers(_ peers: [PeerSnapshot], into out: inout Writer) {
    out.family(.peerQualityLevel)
    for peer in peers {
      out.sample(
        .peerQualityLevel, [("peer", peer.peer), ("direction", "rx")],
        Double(peer.rx.level.rawValue))
      out.sample(
        .peerQualityLevel, [("peer", peer.peer), ("direction", "tx")],
        Double(peer.tx.level.rawValue))
    }
    out.family(.peerMOS)
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let mos = snapshot.meanOpinionScore {
          out.sample(.peerMOS, [("peer", peer.peer), ("direction", direction)], mos)
        }
      }
    }
    out.family(.peerLossRatio)
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let loss = snapshot.inputs?.lossRatio {
          out.sample(
            .peerLossRatio, [("peer", peer.peer), ("direction", direction)], loss)
        }
      }
    }
    out.family(.peerJitterSeconds)
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let jitter = snapshot.inputs?.jitterMilliseconds {
          out.sample(
            .peerJitterSeconds, [("peer", peer.peer), ("direction", direction)],
            jitter / 1000)
        }
      }
    }
    out.family(.peerRTTSeconds)
    for peer in peers {
      if let rtt = peer.roundTripMilliseconds, let source = peer.roundTripSource {
        out.sample(
          .peerRTTSeconds, [("peer", peer.peer), ("source", source.rawValue)],
          rtt / 1000)
      }
    }
    out.family(.peerConnectionState)
    for peer in peers {
      for state in ConnectionState.allCases {
        out.sample(
          .peerConnectionState, [("peer", peer.peer), ("state", state.rawValue)],
          peer.state == state ? 1 : 0)
      }
    }
    out.family(.peerReceivedPacketsTotal)
    for peer in peers {
      out.sample(
        .peerReceivedPacketsTotal, [("peer", peer.peer)], Double(peer.rxPacketsTotal)
      )
    }
    out.family(.peerLostPacketsTotal)
    for peer in peers {
      out.sample(
        .peerLostPacketsTotal, [("peer", peer.peer)], Double(peer.rxLostTotal))
    }
    out.family(.peerSentPacketsTotal)
    for peer in peers {
      out.sample(
        .peerSentPacketsTotal, [("peer", peer.peer)], Double(peer.txPacketsTotal))
    }
    out.family(.peerRetransmittedPacketsTotal)
    for peer in peers {
      for (direction, total) in [
        ("rx", peer.rxRetransmittedTotal), ("tx", peer.txRetransmittedTotal),
      ] {
        out.sample(
          .peerRetransmittedPacketsTotal,
          [("peer", peer.peer), ("direction", direction)], Double(total))
      }
    }
    out.family(.peerFECPacketsTotal)
    for peer in peers {
      out.sample(
        .peerFECPacketsTotal, [("peer", peer.peer)], Double(peer.rxFECTotal))
    }
  }

  private func streams(_ streams: [StreamWindow], into out: inout Writer) {
    let shown = streams.prefix(maxStreamSeries)
    func labels(_ stream: StreamWindow) -> [(String, String)] {
      [
        ("src", stream.key.source.description), ("dst", stream.key.destination.description),
        ("ssrc", SSRCFormat.text(stream.key.ssrc)), ("direction", stream.direction.rawValue),
      ]
    }
    out.family(.streamLossRatio)
    for stream in shown {
      out.sample(.streamLossRatio, labels(stream), stream.lossRatio)
    }
    out.family(.streamJitterSeconds)
    for stream in shown {
      if let jitter = stream.jitterMilliseconds {
        out.sample(.streamJitterSeconds, labels(stream), jitter / 1000)
      }
    }
    out.family(.streamPacketsTotal)
    for stream in shown {
      out.sample(.streamPacketsTotal, labels(stream), Double(stream.packetsTotal))
    }
    out.family(.streamSeriesDropped)
    out.sample(.streamSeriesDropped, [], Double(streams.count - shown.count))
  }

  private func interfaceMetrics(into out: inout Writer) {
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

  private func engineMetrics(into out: inout Writer) {
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

/// Builds exposition text: families with HELP and TYPE, samples with escaped labels. Only
/// families of the catalogue (`MetricCatalogue.swift`) can be written.
struct Writer {
  private(set) var text = ""

  /// Text another writer rendered (a cached section).
  mutating func append(_ section: String) { text += section }

  mutating func family(_ family: MetricFamily) { text += family.header }

  mutating func sample(_ family: MetricFamily, _ labels: [(String, String)], _ value: Double) {
    sample(named: family.name, labels, value)
  }

  private mutating func sample(named name: String, _ labels: [(String, String)], _ value: Double) {
    text += name
    if !labels.isEmpty {
      text += "{"
      for (index, (key, labelValue)) in labels.enumerated() {
        if index > 0 { text += "," }
        text += "\(key)=\"\(Self.escapeLabel(labelValue))\""
      }
      text += "}"
    }
    text += " \(Self.number(value))\n"
  }

  /// A histogram's samples: cumulative `_bucket`s by `le` (the last +Inf), `_sum`, `_count`.
  mutating func histogram(
    _ family: MetricFamily, _ labels: [(String, String)], _ histogram: DelayHistogram
  ) {
    let cumulative = histogram.cumulativeCounts
    for (index, count) in cumulative.enumerated() {
      let bound =
        index < histogram.boundsSeconds.count ? Self.number(histogram.boundsSeconds[index]) : "+Inf"
      sample(named: family.bucketName, labels + [("le", bound)], Double(count))
    }
    sample(named: family.sumName, labels, histogram.sumSeconds)
    sample(named: family.countName, labels, Double(cumulative.last ?? 0))
  }

  /// A histogram of `values` over `bounds`: cumulative `_bucket`s by `le` (the last +Inf),
  /// `_sum`, `_count`.
  mutating func buckets(
    _ family: MetricFamily, _ labels: [(String, String)], _ bounds: [Double], _ values: [Double]
  ) {
    var counts = [Int](repeating: 0, count: bounds.count + 1)
    var sum = 0.0
    for value in values {
      counts[bounds.firstIndex { value <= $0 } ?? bounds.count] += 1
      sum += value
    }
    var cumulative = 0
    for (index, count) in counts.enumerated() {
      cumulative += count
      let bound = index < bounds.count ? Self.number(bounds[index]) : "+Inf"
      sample(named: family.bucketName, labels + [("le", bound)], Double(cumulative))
    }
    sample(named: family.sumName, labels, sum)
    sample(named: family.countName, labels, Double(values.count))
  }

  /// Label values escape backslash, double quote and line feed (exposition format 0.0.4).
  static func escapeLabel(_ value: String) -> String {
    var escaped = ""
    for character in value {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// HELP text escapes backslash and line feed.
  static func escapeHelp(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
  }

  static func number(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
