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

  /// The HTTP server's connections: open now, and closed to make room, refused, timed out.
  public struct HTTPConnections: Sendable, Equatable {
    public var open: Int
    public var evicted: Int64
    public var refused: Int64
    public var timedOut: Int64

    public init(open: Int, evicted: Int64, refused: Int64, timedOut: Int64) {
      self.open = open
      self.evicted = evicted
      self.refused = refused
      self.timedOut = timedOut
    }
  }

  public var snapshot: Snapshot?
  public var http: HTTPConnections?
  public var alerts: [Alert] = []
  public var interfaces: [Interface] = []
  public var capture = CaptureCounters()
  public var trackedStreams = 0
  /// Slots of the engine's stream arrays: live streams plus free slots awaiting reuse.
  public var streamSlots = 0
  /// The last tick's phases and how long each took, seconds (harvest, score, publish).
  public var tickDurations: [(phase: String, seconds: Double)] = []
  public var perStream = false
  public var maxStreamSeries = 1000
  /// Peers with series of their own (the worst, after the pinned ones); the others are
  /// counted in the fleet series only.
  public var maxPeerSeries = 200
  /// Peers always given series of their own: the configured peer groups.
  public var pinnedPeers: Set<String> = []
  public var configReloadSuccessful = true
  public var configReloadTime: Double?
  public var version = ""
  public var probeSenders: [ProbeSenderFigures] = []
  public var reflector: ReflectorFigures?
  public var storage: StorageFigures?
  /// The kinds of storage errors, each exported (0 until it happens).
  public var storageErrorKinds: [String] = []
  public var dashboard: DashboardFigures?
  public var alertmanager: AlertmanagerFigures?

  public init() {}

  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// The exposition; `renderSeconds` (the previous scrape's render time) is exported too.
  /// `tickSection` is `renderTickSection()` of the same tick, rendered once when the tick was
  /// published (the agent caches it); nil renders it now.
  public func render(previousRenderSeconds: Double?, tickSection: String? = nil) -> String {
    var out = Writer()
    out.family("netquality_build_info", .gauge, "Build of the agent; always 1.")
    out.sample("netquality_build_info", [("version", version)], 1)
    out.append(tickSection ?? renderTickSection())
    interfaceMetrics(into: &out)
    engineMetrics(into: &out)
    probeSenderMetrics(into: &out)
    reflectorMetrics(into: &out)
    storageMetrics(into: &out, errorKinds: storageErrorKinds)
    dashboardMetrics(into: &out)
    alertmanagerMetrics(into: &out)

    out.family(
      "netquality_config_last_reload_successful", .gauge,
      "Whether the last configuration load (start or SIGHUP) succeeded.")
    out.sample("netquality_config_last_reload_successful", [], configReloadSuccessful ? 1 : 0)
    if let configReloadTime {
      out.family(
        "netquality_config_last_reload_success_timestamp_seconds", .gauge,
        "When the configuration was last loaded successfully, Unix time.")
      out.sample("netquality_config_last_reload_success_timestamp_seconds", [], configReloadTime)
    }
    if let previousRenderSeconds {
      out.family(
        "netquality_scrape_duration_seconds", .gauge, "Time the previous scrape took to render.")
      out.sample("netquality_scrape_duration_seconds", [], previousRenderSeconds)
    }
    if let http {
      out.family("netquality_http_connections", .gauge, "HTTP connections open now.")
      out.sample("netquality_http_connections", [], Double(http.open))
      out.family(
        "netquality_http_connections_closed_total", .counter,
        "HTTP connections the server closed, by reason: evicted (the longest waiting, to make "
          + "room at the cap), refused (every slot busy), timeout (no request in time).")
      for (reason, count) in [
        ("evicted", http.evicted), ("refused", http.refused), ("timeout", http.timedOut),
      ] {
        out.sample("netquality_http_connections_closed_total", [("reason", reason)], Double(count))
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
      out.family(
        "netquality_last_tick_timestamp_seconds", .gauge, "End of the last 2 s window, Unix time.")
      out.sample("netquality_last_tick_timestamp_seconds", [], snapshot.time.secondsSinceEpoch)
      out.family(
        "netquality_host_quality_level", .gauge,
        "Worst quality over active peers: 0 unknown, 1 excellent ... 5 very bad, 6 down.")
      out.sample(
        "netquality_host_quality_level", [("direction", "rx")], Double(snapshot.hostRx.rawValue))
      out.sample(
        "netquality_host_quality_level", [("direction", "tx")], Double(snapshot.hostTx.rawValue))
      let shown = Self.seriesPeers(snapshot.peers, limit: maxPeerSeries, pinned: pinnedPeers)
      if shown.count < snapshot.peers.count { shownNames = Set(shown.map(\.peer)) }
      fleet(snapshot.peers, shown: shown.count, into: &out)
      peers(shown, into: &out)
      probes(snapshot.peers, into: &out)
      if perStream { streams(snapshot.streams, into: &out) }
    }
    // Every firing alert is counted by rule; the per-alert series only for the peers that have
    // series of their own (and alerts about no peer), within the same budget.
    out.family(
      "netquality_firing_alerts", .gauge, "Alerts firing now, by rule and severity (every peer).")
    var byRule: [String: (severity: String, count: Int)] = [:]
    for alert in alerts {
      byRule[alert.rule, default: (alert.severity.rawValue, 0)].count += 1
    }
    for (rule, entry) in byRule.sorted(by: { $0.key < $1.key }) {
      out.sample(
        "netquality_firing_alerts", [("alertname", rule), ("severity", entry.severity)],
        Double(entry.count))
    }
    out.family(
      "netquality_alerts_firing", .gauge,
      "Alerts firing now, by rule, peer and direction (peers with series of their own).")
    for alert in alerts.sorted(by: { $0.id < $1.id }) {
      if let shownNames, let peer = alert.labels["peer"], !shownNames.contains(peer) { continue }
      var labels = [("alertname", alert.rule), ("severity", alert.severity.rawValue)]
      labels += alert.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
      out.sample("netquality_alerts_firing", labels, 1)
    }
    return out.text
  }

  private func peers(_ peers: [PeerSnapshot], into out: inout Writer) {
    out.family(
      "netquality_peer_quality_level", .gauge,
      "Peer quality per direction: 0 unknown, 1 excellent, 2 good, 3 poor, 4 bad, 5 very bad, 6 down."
    )
    for peer in peers {
      out.sample(
        "netquality_peer_quality_level", [("peer", peer.peer), ("direction", "rx")],
        Double(peer.rx.level.rawValue))
      out.sample(
        "netquality_peer_quality_level", [("peer", peer.peer), ("direction", "tx")],
        Double(peer.tx.level.rawValue))
    }
    out.family(
      "netquality_peer_mos", .gauge, "ITU-T G.107 MOS estimate per direction, when scored.")
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let mos = snapshot.meanOpinionScore {
          out.sample("netquality_peer_mos", [("peer", peer.peer), ("direction", direction)], mos)
        }
      }
    }
    out.family(
      "netquality_peer_loss_ratio", .gauge,
      "Packet loss over the scoring span (rx measured, tx reported).")
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let loss = snapshot.inputs?.lossRatio {
          out.sample(
            "netquality_peer_loss_ratio", [("peer", peer.peer), ("direction", direction)], loss)
        }
      }
    }
    out.family(
      "netquality_peer_jitter_seconds", .gauge,
      "RFC 3550 interarrival jitter (rx measured, tx reported).")
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let jitter = snapshot.inputs?.jitterMilliseconds {
          out.sample(
            "netquality_peer_jitter_seconds", [("peer", peer.peer), ("direction", direction)],
            jitter / 1000)
        }
      }
    }
    out.family(
      "netquality_peer_rtt_seconds", .gauge,
      "Round trip to the peer from the capture point: RTCP LSR/DLSR (source=rtcp), or ICE checks when RTCP is encrypted (source=stun)."
    )
    for peer in peers {
      if let rtt = peer.roundTripMilliseconds, let source = peer.roundTripSource {
        out.sample(
          "netquality_peer_rtt_seconds", [("peer", peer.peer), ("source", source.rawValue)],
          rtt / 1000)
      }
    }
    out.family(
      "netquality_peer_connection_state", .gauge, "1 for the peer's current connection state.")
    for peer in peers {
      for state in ConnectionState.allCases {
        out.sample(
          "netquality_peer_connection_state", [("peer", peer.peer), ("state", state.rawValue)],
          peer.state == state ? 1 : 0)
      }
    }
    out.family(
      "netquality_peer_received_packets_total", .counter, "RTP packets received from the peer.")
    for peer in peers {
      out.sample(
        "netquality_peer_received_packets_total", [("peer", peer.peer)], Double(peer.rxPacketsTotal)
      )
    }
    out.family(
      "netquality_peer_lost_packets_total", .counter,
      "RTP packets from the peer that never arrived.")
    for peer in peers {
      out.sample(
        "netquality_peer_lost_packets_total", [("peer", peer.peer)], Double(peer.rxLostTotal))
    }
    out.family("netquality_peer_sent_packets_total", .counter, "RTP packets sent to the peer.")
    for peer in peers {
      out.sample(
        "netquality_peer_sent_packets_total", [("peer", peer.peer)], Double(peer.txPacketsTotal))
    }
    out.family(
      "netquality_peer_retransmitted_packets_total", .counter,
      "RFC 4588 retransmissions (rx from the peer, tx to it), outside the media packet counts.")
    for peer in peers {
      for (direction, total) in [
        ("rx", peer.rxRetransmittedTotal), ("tx", peer.txRetransmittedTotal),
      ] {
        out.sample(
          "netquality_peer_retransmitted_packets_total",
          [("peer", peer.peer), ("direction", direction)], Double(total))
      }
    }
    out.family(
      "netquality_peer_fec_packets_total", .counter,
      "Forward error correction packets from the peer on streams of their own (ULPFEC, FlexFEC).")
    for peer in peers {
      out.sample(
        "netquality_peer_fec_packets_total", [("peer", peer.peer)], Double(peer.rxFECTotal))
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
    out.family(
      "netquality_stream_loss_ratio", .gauge, "Loss of the last window, per stream (opt-in).")
    for stream in shown {
      out.sample("netquality_stream_loss_ratio", labels(stream), stream.lossRatio)
    }
    out.family(
      "netquality_stream_jitter_seconds", .gauge, "RFC 3550 jitter of the last window, per stream.")
    for stream in shown {
      if let jitter = stream.jitterMilliseconds {
        out.sample("netquality_stream_jitter_seconds", labels(stream), jitter / 1000)
      }
    }
    out.family("netquality_stream_packets_total", .counter, "RTP packets of the stream.")
    for stream in shown {
      out.sample("netquality_stream_packets_total", labels(stream), Double(stream.packetsTotal))
    }
    out.family(
      "netquality_stream_series_dropped", .gauge,
      "Streams left out of the per-stream series by the cap.")
    out.sample("netquality_stream_series_dropped", [], Double(streams.count - shown.count))
  }

  private func interfaceMetrics(into out: inout Writer) {
    out.family("netquality_capture_up", .gauge, "Whether the capture on the interface is running.")
    for interface in interfaces {
      out.sample(
        "netquality_capture_up", [("interface", interface.name)], interface.capturing ? 1 : 0)
    }
    out.family(
      "netquality_link_up", .gauge, "Whether the interface has its link (operstate and carrier).")
    for interface in interfaces {
      if let up = interface.linkUp {
        out.sample("netquality_link_up", [("interface", interface.name)], up ? 1 : 0)
      }
    }
    out.family(
      "netquality_capture_received_packets_total", .counter,
      "Packets the capture received (pcap_stats ps_recv).")
    for interface in interfaces {
      out.sample(
        "netquality_capture_received_packets_total", [("interface", interface.name)],
        Double(interface.receivedPackets))
    }
    out.family(
      "netquality_capture_dropped_packets_total", .counter,
      "Packets the kernel dropped for want of buffer (pcap_stats ps_drop): capture loss, not network loss."
    )
    for interface in interfaces {
      out.sample(
        "netquality_capture_dropped_packets_total", [("interface", interface.name)],
        Double(interface.droppedPackets))
    }
    out.family(
      "netquality_capture_interface_dropped_packets_total", .counter,
      "Packets the interface or driver dropped (pcap_stats ps_ifdrop).")
    for interface in interfaces {
      out.sample(
        "netquality_capture_interface_dropped_packets_total", [("interface", interface.name)],
        Double(interface.interfaceDroppedPackets))
    }
  }

  private func engineMetrics(into out: inout Writer) {
    out.family("netquality_streams", .gauge, "RTP streams tracked (validated and candidates).")
    out.sample("netquality_streams", [], Double(trackedStreams))
    out.family(
      "netquality_stream_slots", .gauge,
      "Slots of the stream table: live streams plus free slots awaiting reuse.")
    out.sample("netquality_stream_slots", [], Double(streamSlots))
    out.family(
      "netquality_tick_duration_seconds", .gauge,
      "How long the last tick took, by phase: harvest (captures held up), score, publish.")
    for (phase, seconds) in tickDurations {
      out.sample("netquality_tick_duration_seconds", [("phase", phase)], seconds)
    }
    out.family("netquality_packets_total", .counter, "Frames handed to the engine.")
    out.sample("netquality_packets_total", [], Double(capture.frames))
    out.family("netquality_rtcp_packets_total", .counter, "RTCP compound packets seen.")
    out.sample("netquality_rtcp_packets_total", [], Double(capture.rtcpPackets))
    out.family(
      "netquality_decode_errors_total", .counter, "Malformed frames and packets, by reason.")
    for (reason, count) in capture.decodeErrors.sorted(by: { $0.key < $1.key }) {
      out.sample("netquality_decode_errors_total", [("reason", reason)], Double(count))
    }
    out.family("netquality_truncated_packets_total", .counter, "Frames cut by the snap length.")
    out.sample("netquality_truncated_packets_total", [], Double(capture.truncated))
    out.family(
      "netquality_capture_clock_steps_total", .counter,
      "Times the packet timestamps stepped back more than 1 s and the analysis followed.")
    out.sample("netquality_capture_clock_steps_total", [], Double(capture.clockSteps))
    out.family(
      "netquality_capture_out_of_order_timestamps_total", .counter,
      "Single packets stamped more than 1 s behind their neighbours, placed in arrival order.")
    out.sample(
      "netquality_capture_out_of_order_timestamps_total", [], Double(capture.outOfOrderTimestamps))
  }
}

/// Builds exposition text: families with HELP and TYPE, samples with escaped labels.
struct Writer {
  enum Kind: String {
    case gauge, counter, histogram
  }

  private(set) var text = ""

  /// Text another writer rendered (a cached section).
  mutating func append(_ section: String) { text += section }

  mutating func family(_ name: String, _ kind: Kind, _ help: String) {
    text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
  }

  mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
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
  mutating func histogram(_ name: String, _ labels: [(String, String)], _ histogram: DelayHistogram)
  {
    let cumulative = histogram.cumulativeCounts
    for (index, count) in cumulative.enumerated() {
      let bound =
        index < histogram.boundsSeconds.count ? Self.number(histogram.boundsSeconds[index]) : "+Inf"
      sample(name + "_bucket", labels + [("le", bound)], Double(count))
    }
    sample(name + "_sum", labels, histogram.sumSeconds)
    sample(name + "_count", labels, Double(cumulative.last ?? 0))
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
