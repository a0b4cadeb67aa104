import Foundation
import Logging
import NetQualityCapture
import NetQualityConfig
import NetQualityCore
import ServiceLifecycle
import UnixSignals

/// `netquality run`: captures, the ticking engine, the HTTP server and the dashboard as one
/// service group. SIGTERM and SIGINT shut it down cleanly (captures closed, dashboard flushed);
/// SIGHUP reloads the configuration file, keeping the old one if the new one is invalid.
public struct Agent {
  public var configuration: AgentConfiguration
  public var configurationPath: String?
  /// `-` for stdout, a path, or nil for the configuration's `dashboard_file`.
  public var dashboardOverride: String?
  public var logger: Logger

  public init(
    configuration: AgentConfiguration, configurationPath: String?, dashboardOverride: String?,
    logger: Logger
  ) {
    self.configuration = configuration
    self.configurationPath = configurationPath
    self.dashboardOverride = dashboardOverride
    self.logger = logger
  }

  /// The interfaces to capture on and the local networks, from the configuration or, where it
  /// says nothing, from the interfaces that are up.
  public func resolvedCapture() throws -> (interfaces: [String], local: [NetworkPrefix]) {
    let all = try NetworkInterface.all()
    var names = configuration.interfaces
    if names.isEmpty {
      names = all.filter(\.isDefaultCapture).map(\.name)
    }
    guard !names.isEmpty else { throw AgentError.noInterfaces }
    var local = configuration.localNetworks
    if local.isEmpty {
      local = all.filter { names.contains($0.name) || names.contains("any") }
        .flatMap(\.addresses).compactMap { NetworkPrefix($0.description) }
    }
    return (names, local)
  }

  public func run() async throws {
    let (interfaces, local) = try resolvedCapture()
    let options = LiveCapture.Options(
      snapLength: Int32(configuration.snapLength),
      bufferBytes: Int32(configuration.bufferMegabytes * 1024 * 1024),
      filter: configuration.bpfFilter)
    // Open each capture once up front: a missing interface or permission fails the start.
    _ = try CaptureService.openAll(interfaces, options: options)

    var engineConfiguration = configuration.engine
    engineConfiguration.localNetworks = local
    engineConfiguration.peerGroups = configuration.peerGroups.map { ($0.name, $0.networks) }
    let state = AgentState(engine: Engine(configuration: engineConfiguration))
    state.update { $0.configReloadTime = Date().timeIntervalSince1970 }
    let dashboardPath = dashboardOverride ?? configuration.dashboardFile
    let dashboard =
      try dashboardPath.isEmpty ? nil : DashboardOutput(path: dashboardPath, logger: logger)

    let http = HTTPServer.application(
      host: configuration.listenHost, port: configuration.listenPort, state: state,
      settings: .init(
        perStream: configuration.perStreamMetrics, maxStreamSeries: configuration.maxStreamSeries))
    let captures = CaptureService(
      interfaces: interfaces, options: options, state: state, logger: logger)
    let ticker = TickService(
      state: state, intervalSeconds: configuration.engine.tickIntervalSeconds, dashboard: dashboard,
      peerGraceSeconds: configuration.peerGraceSeconds, logger: logger)
    let reloader = ReloadService(
      path: configurationPath, state: state, local: local, logger: logger, current: configuration)
    let started =
      "netquality \(BuildInfo.version) capturing on \(interfaces.joined(separator: ", ")), "
      + "local \(local.map(\.description).joined(separator: ", ")), "
      + "listening on \(configuration.listenHost):\(configuration.listenPort)"
    logger.info("\(started)")
    let group = ServiceGroup(
      configuration: .init(
        services: [
          .init(service: captures), .init(service: ticker), .init(service: http),
          .init(service: reloader),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    do {
      try await group.run()
    } catch {
      let text = "\(error)"
      if text.contains("Address already in use") || text.contains("EADDRINUSE") {
        throw AgentError.cannotListen(
          address: "\(configuration.listenHost):\(configuration.listenPort)",
          reason: "address already in use")
      }
      throw error
    }
  }
}

/// Reloads the configuration on SIGHUP: the engine's settings change in place; a file with
/// errors is reported line by line and the running configuration kept.
final class ReloadService: Service, Sendable {
  let path: String?
  let state: AgentState
  let local: [NetworkPrefix]
  let logger: Logger
  let current: AgentConfiguration

  init(
    path: String?, state: AgentState, local: [NetworkPrefix], logger: Logger,
    current: AgentConfiguration
  ) {
    self.path = path
    self.state = state
    self.local = local
    self.logger = logger
    self.current = current
  }

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sighup)
    for await _ in signals.cancelOnGracefulShutdown() { reload() }
  }

  func reload() {
    guard let path else {
      logger.info("SIGHUP: no configuration file to reload (started without --config)")
      return
    }
    do {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let loaded = try ConfigurationLoader.load(yaml: text, file: path)
      var engineConfiguration = loaded.engine
      engineConfiguration.localNetworks =
        loaded.localNetworks.isEmpty ? local : loaded.localNetworks
      state.engine.withLock { $0.reconfigure(engineConfiguration) }
      state.update {
        $0.configReloadSuccessful = true
        $0.configReloadTime = Date().timeIntervalSince1970
      }
      if loaded.interfaces != current.interfaces || loaded.bpfFilter != current.bpfFilter
        || loaded.listenPort != current.listenPort || loaded.listenHost != current.listenHost
      {
        logger.warning(
          "reloaded \(path); interfaces, filter and listen address change only on restart")
      } else {
        logger.info("reloaded \(path)")
      }
    } catch let error as ConfigurationError {
      state.update { $0.configReloadSuccessful = false }
      for issue in error.issues {
        logger.error("reload kept the old configuration: \(path): \(issue)")
      }
    } catch {
      state.update { $0.configReloadSuccessful = false }
      logger.error("reload kept the old configuration: cannot read \(path): \(error)")
    }
  }
}
