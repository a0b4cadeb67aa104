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
  /// The web configuration the listener started with, and what every request is held to.
  let startedWeb: WebConfiguration
  let security: WebSecurity
  /// The probe thread's targets, applied with the engine in one step (nil: none to apply, as
  /// in tests of the configuration alone: the engine then takes `probes` as configured).
  let probes: ProbeService
  /// The web configuration in effect.
  private let runningWeb: Mutex<WebConfiguration>
  /// What is in effect.
  private let running: Mutex<AgentConfiguration>

  /// Applies `configuration` (the file with the overrides laid over it) to a starting agent.
  /// Fails if the dashboard file cannot be opened.
  public init(
    configuration: AgentConfiguration, path: String?, overrides: ConfigurationOverrides,
    interfaceNetworks: [NetworkPrefix], state: AgentState,
    web: (started: WebConfiguration, security: WebSecurity) = (
      WebConfiguration(), WebSecurity(.none)
    ),
    probes: ProbeService,
    logger: Logger
  ) throws {
    self.path = path
    self.overrides = overrides
    self.interfaceNetworks = interfaceNetworks
    self.state = state
    self.logger = logger
    started = configuration
    startedWeb = web.started
    security = web.security
    runningWeb = Mutex(web.started)
    running = Mutex(configuration)
    self.probes = probes
    try apply(
      configuration, dashboard: openDashboard(configuration),
      probes: ProbeService.prepare(configuration.probes))
    state.update { $0.status.configurationFile = path }
  }

  /// The configuration in effect.
  public var current: AgentConfiguration { running.withLock { $0 } }

  /// Reads the file (and the web configuration file) again and applies them; a file with
  /// errors (or a dashboard file that cannot be opened) is reported line by line and the
  /// running configuration kept. Returns whether the new configuration took effect. Started
  /// without `--config`, only a `--web.config.file` is read again.
  @discardableResult
  public func reload() -> Bool { reloadWithOutcome().succeeded }

  /// What a reload did: applied or not, and the lines it logged about why not.
  public struct ReloadOutcome: Sendable, Equatable {
    public var succeeded: Bool
    public var lines: [String]
  }

  /// `reload()`, with the reasons of a refusal (what `POST /-/reload` answers).
  public func reloadWithOutcome() -> ReloadOutcome {
    guard path != nil || overrides.webConfigFile != nil else {
      let line = "no configuration file to reload (started without --config)"
      logger.info("\(line)")
      return ReloadOutcome(succeeded: false, lines: [line])
    }
    var loaded = current
    let web: WebSecurity.Loaded
    do {
      if let path { loaded = overrides.applied(to: try ConfigurationLoader.load(path: path)) }
      // The web configuration file is read again too, and must be valid as a whole.
      web = try WebSecurity.load(path: loaded.webConfigFile)
    } catch {
      let lines = error.issues.map { "reload kept the old configuration: \(error.file): \($0)" }
      for line in lines { logger.error("\(line)") }
      state.update { $0.status.lastReloadSuccessful = false }
      return ReloadOutcome(succeeded: false, lines: lines)
    }
    // Keys that need a restart keep the values the agent started with (their declarations
    // say which: `ConfigurationKeys.keepStarted`).
    var effective: AgentConfiguration
    var restartKeys: [String]
    (effective, restartKeys) = ConfigurationKeys.keepStarted(started, loaded: loaded)
    // `alertmanager` needs a restart, but the secrets of its `password_file` and
    // `credentials_file` are read again and applied (as Prometheus reads them at each use).
    effective.alertmanager.http.takeSecrets(from: loaded.alertmanager.http)
    var changed = ConfigurationKeys.changed(from: current, to: effective).map(\.name)
    // The file's name may be the same and its users, headers or certificate files new.
    let previousWeb = runningWeb.withLock { $0 }
    if !changed.contains("web_config_file"), Self.webDiffers(previousWeb, web.configuration) {
      changed.append("web_config_file")
    }
    let dashboard: DashboardOutput?
    let prepared: ProbeService.Prepared
    do {
      // Every target's key file read before anything changes: one that cannot be read keeps
      // the whole running configuration.
      prepared = try ProbeService.prepare(effective.probes)
      dashboard = try openDashboard(effective)
    } catch {
      let line = "reload kept the old configuration: \(error)"
      logger.error("\(line)")
      state.update { $0.status.lastReloadSuccessful = false }
      return ReloadOutcome(succeeded: false, lines: [line])
    }
    apply(effective, dashboard: dashboard, probes: prepared)
    runningWeb.withLock { $0 = web.configuration }
    if security.apply(web, startedWith: startedWeb) {
      restartKeys.append("web_config_file (tls_server_config)")
    }
    state.update { $0.status.restartPending = restartKeys }
    let applied = changed.isEmpty ? "no change" : changed.joined(separator: ", ")
    let files = [path, loaded.webConfigFile].compactMap { $0 }.filter { !$0.isEmpty }.joined(
      separator: " and ")
    if restartKeys.isEmpty {
      logger.info("reloaded \(files): \(applied)")
    } else {
      let waiting = restartKeys.joined(separator: ", ")
      logger.warning("reloaded \(files): \(applied); changed but waiting for a restart: \(waiting)")
    }
    return ReloadOutcome(succeeded: true, lines: [])
  }

  /// Whether two web configurations differ (the line numbers aside).
  static func webDiffers(_ a: WebConfiguration, _ b: WebConfiguration) -> Bool {
    var a = a
    a.keyLines = b.keyLines
    return a != b
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

  private func apply(
    _ configuration: AgentConfiguration, dashboard: DashboardOutput?,
    probes prepared: ProbeService.Prepared
  ) {
    let engine = configuration.engineConfiguration(interfaceNetworks: interfaceNetworks)
    // The engine is told the targets the probe thread runs (a removed one until its last
    // probes settle), in the same step as the thread's change (`ProbeTargets`).
    let (state, interfaceNetworks) = (self.state, self.interfaceNetworks)
    probes.apply(prepared) { running in
      var probed = configuration
      probed.probes = running
      state.reconfigure(probed.engineConfiguration(interfaceNetworks: interfaceNetworks))
    }
    state.alertmanager?.reconfigure(
      rules: engine.alertRules, tickIntervalSeconds: engine.tickIntervalSeconds,
      runbookURL: AlertmanagerService.runbookURL(
        configuration, scheme: security.tls == nil ? "http" : "https"))
    state.alertmanager?.reauthorize(configuration.alertmanager.http)
    state.dashboard.withLock { $0 = dashboard }
    running.withLock { $0 = configuration }
    state.update { published in
      published.metrics = .init(
        perStream: configuration.perStreamMetrics,
        maxStreamSeries: configuration.maxStreamSeries, maxPeerSeries: configuration.maxPeerSeries,
        pinnedPeers: Set(configuration.peerGroups.map(\.name)),
        alertRules: engine.alertRules.map { ($0.name, $0.severity.rawValue) })
      published.status.configuration = configuration
      published.status.localNetworks = engine.localNetworks
      published.status.lastReloadSuccessful = true
      published.status.lastReloadTime = Date().timeIntervalSince1970
    }
  }
}
