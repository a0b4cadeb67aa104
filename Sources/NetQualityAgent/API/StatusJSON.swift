import NetQualityConfig
import NetQualityCore
import NetQualityExport

/// `/api/v1/status`: the configuration in effect (after the command line's overrides and the
/// last reload), when it was loaded, and which changed keys wait for a restart.
enum StatusJSON {
  static func render(_ status: AgentStatus) -> JSONValue {
    let configuration = status.configuration
    let timers = configuration.engine.timers
    return .object([
      ("version", .string(BuildInfo.version)),
      ("configuration_file", status.configurationFile.map { .string($0) } ?? .null),
      ("last_reload_successful", .bool(status.lastReloadSuccessful)),
      ("last_reload_time", .optional(status.lastReloadTime)),
      ("restart_pending", .array(status.restartPending.map { .string($0) })),
      (
        "configuration",
        .object([
          ("interfaces", .array(configuration.interfaces.map { .string($0) })),
          ("bpf_filter", .string(configuration.bpfFilter)),
          ("local_networks", .array(status.localNetworks.map { .string($0.description) })),
          (
            "peers",
            .array(
              configuration.peerGroups.map { group in
                .object([
                  ("name", .string(group.name)),
                  ("addresses", .array(group.networks.map { .string($0.description) })),
                ])
              })
          ),
          ("tick_interval", .number(configuration.engine.tickIntervalSeconds)),
          ("max_streams", .integer(Int64(configuration.engine.analyzer.maxStreams))),
          (
            "timers",
            .object([
              ("interrupted", .number(timers.interruptedAfterSeconds)),
              ("disconnected", .number(timers.disconnectedAfterSeconds)),
              ("timeout", .number(timers.timeoutAfterSeconds)),
            ])
          ),
          ("alert_rules", .array(configuration.engine.alertRules.map { .string($0.name) })),
          ("listen", .string("\(configuration.listenHost):\(configuration.listenPort)")),
          ("listen_also", .array(configuration.moreListenAddresses.map { .string("\($0)") })),
          ("telemetry_path", .string(configuration.telemetryPath)),
          ("web_config_file", .string(configuration.webConfigFile)),
          (
            "metrics",
            .object([
              ("per_stream", .bool(configuration.perStreamMetrics)),
              ("max_stream_series", .integer(Int64(configuration.maxStreamSeries))),
              ("max_peer_series", .integer(Int64(configuration.maxPeerSeries))),
              ("peer_grace_seconds", .number(configuration.peerGraceSeconds)),
            ])
          ),
          ("dashboard_file", .string(configuration.dashboardFile)),
          (
            "dashboard",
            .object([
              ("max_peers", .integer(Int64(configuration.dashboard.maxPeers))),
              ("max_size_mb", .integer(Int64(configuration.dashboard.maxSizeMegabytes))),
              ("keep", .integer(Int64(configuration.dashboard.keep))),
            ])
          ),
          (
            "status_page",
            .object([
              ("max_peers", .integer(Int64(configuration.statusPage.maxPeers))),
              ("chart_seconds", .number(configuration.statusPage.chartSeconds)),
            ])
          ),
          ("storage_path", .string(configuration.storagePath)),
          (
            "alertmanager_urls",
            .array(configuration.alertmanager.urls.map { .string($0.description) })
          ),
        ])
      ),
      (
        "reload",
        .object(ConfigurationKeys.all.map { ($0.name, .string($0.effect.rawValue)) })
      ),
    ])
  }
}
