/// Which configuration keys a reload (SIGHUP) applies at once and which wait for a restart:
/// the one table the reload's log, the status API and the documentation follow.
public enum ConfigurationKeys {
  public enum Effect: String, Sendable {
    /// Applied by a reload, from the next tick (or the next scrape).
    case live
    /// Read once at start: the capture sockets, the HTTP listener, the history file.
    case restart
  }

  public struct Key: Sendable {
    /// The key as written in the file (dotted below the top level).
    public var name: String
    public var effect: Effect
    let differs: @Sendable (AgentConfiguration, AgentConfiguration) -> Bool
  }

  /// Every key, in the order of config/netquality.yaml.
  public static let all: [Key] = [
    key("interfaces", .restart) { $0.interfaces != $1.interfaces },
    key("bpf_filter", .restart) { $0.bpfFilter != $1.bpfFilter },
    key("snaplen", .restart) { $0.snapLength != $1.snapLength },
    key("buffer_size_mb", .restart) { $0.bufferMegabytes != $1.bufferMegabytes },
    key("local_networks", .live) { $0.localNetworks != $1.localNetworks },
    key("peers", .live) { $0.peerGroups != $1.peerGroups },
    key("tick_interval", .live) {
      $0.engine.tickIntervalSeconds != $1.engine.tickIntervalSeconds
    },
    key("max_streams", .live) { $0.engine.analyzer.maxStreams != $1.engine.analyzer.maxStreams },
    key("timers", .live) { $0.engine.timers != $1.engine.timers },
    key("quality", .live) { $0.engine.quality != $1.engine.quality },
    key("alerts", .live) {
      $0.engine.alertRules != $1.engine.alertRules || $0.alertRunbookURL != $1.alertRunbookURL
    },
    key("listen", .restart) { ($0.listenHost, $0.listenPort) != ($1.listenHost, $1.listenPort) },
    // The file is read again by every reload: users, headers, the rate limit and the
    // certificate and key apply at once; the rest of tls_server_config waits for a restart
    // (`WebConfiguration.listenerSettingsDiffer`, named in the reload's log).
    key("web_config_file", .live) { $0.webConfigFile != $1.webConfigFile },
    key("metrics.per_stream", .live) { $0.perStreamMetrics != $1.perStreamMetrics },
    key("metrics.max_stream_series", .live) { $0.maxStreamSeries != $1.maxStreamSeries },
    key("metrics.max_peer_series", .live) { $0.maxPeerSeries != $1.maxPeerSeries },
    key("metrics.peer_grace_seconds", .live) { $0.peerGraceSeconds != $1.peerGraceSeconds },
    key("dashboard_file", .live) { $0.dashboardFile != $1.dashboardFile },
    key("dashboard", .live) { $0.dashboard != $1.dashboard },
    key("status_page", .live) { $0.statusPage != $1.statusPage },
    key("probes", .restart) { $0.probes != $1.probes },
    key("reflector", .restart) { $0.reflector != $1.reflector },
    key("storage_path", .restart) { $0.storagePath != $1.storagePath },
    key("storage", .restart) { $0.storage != $1.storage },
    key("alertmanager", .restart) { $0.alertmanager != $1.alertmanager },
  ]

  /// The keys whose values differ between two configurations, in file order.
  public static func changed(from old: AgentConfiguration, to new: AgentConfiguration) -> [Key] {
    all.filter { $0.differs(old, new) }
  }

  private static func key(
    _ name: String, _ effect: Effect,
    differs: @escaping @Sendable (AgentConfiguration, AgentConfiguration) -> Bool
  ) -> Key {
    Key(name: name, effect: effect, differs: differs)
  }
}
