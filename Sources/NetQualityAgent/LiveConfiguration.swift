import Foundation
import Logging
import NetQualityConfig
import NetQualityCore
import Synchronization

/// The configuration the agent runs with, and the one way it is applied: at start and on every
/// reload the file is read, the command line's overrides laid over it, and every key that
/// takes effect live (see `ConfigurationKeys`) applied the same way — the engine's settings
/// through `AgentConfiguration.engineConfiguration`, the metrics settings, the dashboard file.
/// Keys that need a restart are reported by name and keep their running value.
public final class LiveConfiguration: Sendable {
  let path: String?
  let overrides: ConfigurationOverrides
  /// The capture interfaces' addresses, the local networks when none are configured.
  let interfaceNetworks: [NetworkPrefix]
  let state: AgentState
  let logger: Logger
  /// What the agent started with: restart-only keys keep these values.
  let started: AgentConfiguration
  /// What is in effect.
  private let running: Mutex<AgentConfiguration>

  /// Applies `configuration` (the file with the overrides laid over it) to a starting agent.
  /// Fails if the dashboard file cannot be opened.
  public init(
    configuration: AgentConfiguration, path: String?, overrides: ConfigurationOverrides,
    interfaceNetworks: [NetworkPrefix], state: AgentState, logger: Logger
  ) throws {
    self.path = path
    self.overrides = overrides
    self.interfaceNetworks = interfaceNetworks
    self.state = state
    self.logger = logger
    started = configuration
    running = Mutex(configuration)
    try apply(configuration, dashboard: openDashboard(configuration))
    state.update { $0.status.configurationFile = path }
  }

  /// The configuration in effect.
  public var current: AgentConfiguration { running.withLock { $0 } }

  /// Reads the file again and applies it; a file with errors (or a dashboard file that cannot
  /// be opened) is reported line by line and the running configuration kept. Returns whether
  /// the new configuration took effect.
  @discardableResult
  public func reload() -> Bool {
    guard let path else {
      logger.info("SIGHUP: no configuration file to reload (started without --config)")
      return false
    }
    let loaded: AgentConfiguration
    do {
      loaded = overrides.applied(to: try ConfigurationLoader.load(path: path))
    } catch {
      for issue in error.issues {
        logger.error("reload kept the old configuration: \(path): \(issue)")
      }
      state.update { $0.status.lastReloadSuccessful = false }
      return false
    }
    // Keys that need a restart keep the values the agent started with.
    let restartKeys = ConfigurationKeys.changed(from: started, to: loaded).filter {
      $0.effect == .restart
    }
    var effective = loaded
    effective.interfaces = started.interfaces
    effective.bpfFilter = started.bpfFilter
    effective.snapLength = started.snapLength
    effective.bufferMegabytes = started.bufferMegabytes
    effective.listenHost = started.listenHost
    effective.listenPort = started.listenPort
    effective.storagePath = started.storagePath
    effective.storage = started.storage
    effective.alertmanager = started.alertmanager
    let changed = ConfigurationKeys.changed(from: current, to: effective)
    let dashboard: DashboardOutput?
    do {
      dashboard = try openDashboard(effective)
    } catch {
      logger.error("reload kept the old configuration: \(error)")
      state.update { $0.status.lastReloadSuccessful = false }
      return false
    }
    apply(effective, dashboard: dashboard)
    state.update { $0.status.restartPending = restartKeys.map(\.name) }
    let applied = changed.isEmpty ? "no change" : changed.map(\.name).joined(separator: ", ")
    if restartKeys.isEmpty {
      logger.info("reloaded \(path): \(applied)")
    } else {
      let waiting = restartKeys.map(\.name).joined(separator: ", ")
      logger.warning("reloaded \(path): \(applied); changed but waiting for a restart: \(waiting)")
    }
    return true
  }

  /// The dashboard output `configuration` asks for (reopened every time, so logrotate's
  /// `postrotate` can send SIGHUP after moving the file); nil for none.
  private func openDashboard(_ configuration: AgentConfiguration) throws -> DashboardOutput? {
    guard !configuration.dashboardFile.isEmpty else { return nil }
    let settings = configuration.dashboard
    return try DashboardOutput(
      path: configuration.dashboardFile,
      rotation: .init(maxBytes: settings.maxSizeBytes, keep: settings.keep),
      counters: state.dashboardCounters, logger: logger)
  }

  private func apply(_ configuration: AgentConfiguration, dashboard: DashboardOutput?) {
    let engine = configuration.engineConfiguration(interfaceNetworks: interfaceNetworks)
    state.reconfigure(engine)
    state.alertmanager?.reconfigure(
      rules: engine.alertRules, tickIntervalSeconds: engine.tickIntervalSeconds)
    state.dashboard.withLock { $0 = dashboard }
    running.withLock { $0 = configuration }
    state.update { published in
      published.metrics = .init(
        perStream: configuration.perStreamMetrics,
        maxStreamSeries: configuration.maxStreamSeries, maxPeerSeries: configuration.maxPeerSeries,
        pinnedPeers: Set(configuration.peerGroups.map(\.name)))
      published.status.configuration = configuration
      published.status.localNetworks = engine.localNetworks
      published.status.lastReloadSuccessful = true
      published.status.lastReloadTime = Date().timeIntervalSince1970
    }
  }
}
