import Foundation
import Logging
import NIOCore
import NetQualityCapture
import NetQualityConfig
import NetQualityCore
import ServiceLifecycle
import UnixSignals

/// `netquality run`: captures, the ticking engine, the HTTP server and the dashboard as one
/// service group. SIGTERM and SIGINT shut it down cleanly (captures closed, dashboard flushed);
/// SIGHUP reloads the configuration file (`LiveConfiguration`).
public struct Agent {
  /// The configuration file as loaded (the built-in defaults without one).
  public var file: AgentConfiguration
  public var configurationPath: String?
  /// What the command line says over the file, at start and on every reload.
  public var overrides: ConfigurationOverrides
  /// The web configuration file named by the configuration (or `--web.config.file`), loaded
  /// and checked (`WebSecurity.load`).
  public var web: WebSecurity.Loaded
  public var logger: Logger
  /// Whether `POST /-/reload` is accepted (`--web.enable-lifecycle`).
  public var enableLifecycle = false
  /// The listening sockets systemd passed (`--web.systemd-socket`, `SystemdSockets.take`):
  /// served instead of the listen addresses, which still name the agent. Nil: listen.
  public var systemdSockets: [Int32]?
  /// Whether the process ends as soon as the agent has stopped (`netquality run`): the
  /// engine's state is handed back with the process instead of freed piece by piece, which
  /// took 1.4 s of a 4.4 s SIGTERM at 100,000 peers (issue 37: exit within 5 s at any load).
  /// Tests running an agent in their own process leave it off.
  public var exitsWhenStopped = false

  public init(
    file: AgentConfiguration, configurationPath: String?, overrides: ConfigurationOverrides,
    web: WebSecurity.Loaded = .none, logger: Logger
  ) {
    self.file = file
    self.configurationPath = configurationPath
    self.overrides = overrides
    self.web = web
    self.logger = logger
  }

  /// The interfaces to capture on and their addresses (the local networks where the
  /// configuration names none): from the configuration or, where it says nothing, from the
  /// interfaces that are up.
  public static func resolvedCapture(_ configuration: AgentConfiguration) throws -> (
    interfaces: [String], addresses: [NetworkPrefix]
  ) {
    let all = try NetworkInterface.all()
    var names = configuration.interfaces
    if names.isEmpty {
      names = all.filter(\.isDefaultCapture).map(\.name)
    }
    guard !names.isEmpty else { throw AgentError.noInterfaces }
    let addresses = all.filter { names.contains($0.name) || names.contains("any") }
      .flatMap(\.addresses).compactMap { NetworkPrefix($0.description) }
    return (names, addresses)
  }

  /// ", TLS with client certificates RequireAndVerifyClientCert, basic auth (2 users)" or "".
  static func securityNote(_ security: WebSecurity) -> String {
    var parts: [String] = []
    if let tls = security.tls {
      parts.append(
        tls.settings.clientAuth == .noClientCert
          ? "TLS" : "TLS with client certificates \(tls.settings.clientAuth.rawValue)")
    }
    let users = security.current.users.count
    if users > 0 { parts.append("basic auth (\(users) user\(users == 1 ? "" : "s"))") }
    return parts.isEmpty ? "" : ", " + parts.joined(separator: ", ")
  }

  /// Probe targets named in the start-up line, at most: an agent probing a thousand would
  /// otherwise write a 20 KB line (the reload's "probe targets changed" names 10 too).
  static let startSummaryTargetsNamed = 10

  /// `targets` as the start-up line shows them: the first few, and how many more.
  static func targetsText(_ targets: [String]) -> String {
    guard !targets.isEmpty else { return "none" }
    let named = targets.prefix(startSummaryTargetsNamed).joined(separator: ",")
    let more = targets.count - startSummaryTargetsNamed
    return more > 0 ? "\(named) and \(more) more" : named
  }

  /// What the agent runs with, as the start-up line's keys: what an operator checks first when
  /// it does not do what they expected (which file, which history, which Alertmanager).
  static func startSummary(
    _ configuration: AgentConfiguration, file: String?, interfaces: [String],
    local: [NetworkPrefix], lifecycle: Bool
  ) -> Logger.Metadata {
    func list(_ items: [String]) -> Logger.MetadataValue {
      .string(items.isEmpty ? "none" : items.joined(separator: ","))
    }
    let reflector = configuration.reflector
    return [
      "version": "\(BuildInfo.version)",
      "revision": "\(BuildInfo.revision)",
      "config_file": .string(file ?? "none (built-in defaults)"),
      "listen": "\(configuration.listenHost):\(configuration.listenPort)",
      "interfaces": list(interfaces),
      "local_networks": list(local.map(\.description)),
      "history": .string(configuration.historyPath ?? "off"),
      "alertmanager": list(configuration.alertmanager.urls.map(\.description)),
      "probe_targets": .string(
        targetsText(configuration.probes.map { $0.target.description })),
      "reflector": .string(reflector.enabled ? reflector.listen.description : "off"),
      "web_config_file": .string(
        configuration.webConfigFile.isEmpty ? "none" : configuration.webConfigFile),
      "lifecycle_api": .string(lifecycle ? "on" : "off"),
    ]
  }

  /// One listener per listen address, the first first (its start says `started`), each with
  /// the same endpoints, connection limits and web configuration.
  func listenServers(
    _ configuration: AgentConfiguration, state: AgentState, registry: ConnectionRegistry,
    security: WebSecurity, reload: HTTPServer.Reload?,
    started: @escaping @Sendable (String) -> Void
  ) throws -> [any Service] {
    let scheme = security.tls == nil ? "http" : "https"
    return try configuration.listenAddresses.enumerated().map { index, address in
      try HTTPServer.application(
        host: address.host, port: address.port, state: state, registry: registry,
        security: security, reload: reload, metricsPath: configuration.telemetryPath,
        onServerRunning: { [logger] in
          let listening = "\(scheme)://\(address.shown)"
          if index == 0 {
            started(listening)
          } else {
            logger.info("also listening on \(listening)")
          }
        })
    }
  }

  /// `127.0.0.1:9470`, `[::1]:9470`: a bound socket's address as the listen addresses read.
  static func address(_ address: SocketAddress?) -> String {
    guard let address, let ip = address.ipAddress, let port = address.port else {
      return address.map { "\($0)" } ?? "an unknown address"
    }
    return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
  }

  public func run() async throws {
    MemoryTrim.tuneAllocator()
    let startedAt = ContinuousClock.now
    let configuration = overrides.applied(to: file)
    let (interfaces, addresses) = try Self.resolvedCapture(configuration)
    let options = LiveCapture.Options(
      snapLength: Int32(configuration.snapLength),
      bufferBytes: Int32(configuration.bufferMegabytes * 1024 * 1024),
      filter: configuration.bpfFilter)
    // Open each capture once up front: a missing interface or permission fails the start.
    _ = try CaptureService.openAll(interfaces, options: options)

    let probes = try ProbeService.plan(configuration)
    let history = try HistoryService.recorder(configuration, logger: logger)
    let alertmanager = try AlertmanagerService.notifier(
      configuration, scheme: web.configuration.tls == nil ? "http" : "https", logger: logger)
    let state = AgentState(
      engine: Engine(
        configuration: configuration.engineConfiguration(interfaceNetworks: addresses)),
      history: history, alertmanager: alertmanager)
    let security = WebSecurity(web)
    let probeService = ProbeService(plan: probes, state: state, logger: logger)
    let live = try LiveConfiguration(
      configuration: configuration, path: configurationPath, overrides: overrides,
      interfaceNetworks: addresses, state: state, web: (web.configuration, security),
      probes: probeService, logger: logger)
    let scheme = security.tls == nil ? "http" : "https"
    let reloads = ReloadService(configuration: live)
    let thread = reloads.reloads
    let reload: HTTPServer.Reload? = enableLifecycle ? { @Sendable in await thread.reload() } : nil
    // One listener per address, the same endpoints, connection limits and web configuration.
    let registry = ConnectionRegistry(limits: .defaults)
    let started: @Sendable (String) -> Void = {
      [logger, configurationPath, enableLifecycle] listening in
      let local = live.current.engineConfiguration(interfaceNetworks: addresses).localNetworks
      let line =
        "netquality \(BuildInfo.version) capturing on \(interfaces.joined(separator: ", ")), "
        + "local \(local.map(\.description).joined(separator: ", ")), "
        + "listening on \(listening)" + Self.securityNote(security)
      logger.info(
        "\(line)",
        metadata: Self.startSummary(
          configuration, file: configurationPath, interfaces: interfaces, local: local,
          lifecycle: enableLifecycle))
    }
    let servers: [any Service]
    if let systemdSockets {
      servers = try systemdSockets.enumerated().map { index, descriptor in
        try HTTPServer.boundSocketServer(
          descriptor: descriptor, state: state, registry: registry, security: security,
          reload: reload, metricsPath: configuration.telemetryPath,
          onServerRunning: { [logger] channel in
            let socket =
              "\(scheme)://\(Self.address(channel.localAddress)) (systemd socket, fd \(descriptor))"
            if index == 0 { started(socket) } else { logger.info("also listening on \(socket)") }
          })
      }
    } else {
      servers = try listenServers(
        configuration, state: state, registry: registry, security: security, reload: reload,
        started: started)
    }
    let captures = CaptureService(
      interfaces: interfaces, options: options, state: state, logger: logger)
    let sinks: [any TickSink] =
      [
        PublishedStateSink(state: state), StatusPageSink(state: state), DashboardSink(state: state),
        LogSink(logger: logger),
      ]
      + (history.map { [HistorySink(recorder: $0, state: state)] } ?? [])
      + (alertmanager.map { [AlertmanagerSink(notifier: $0)] } ?? [])
    let shutdown = ShutdownClock()
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: captures),
      .init(service: TickService(state: state, sinks: sinks, captures: captures.progress)),
    ]
    services += servers.map { .init(service: $0) }
    services += [
      .init(service: reloads), .init(service: probeService),
      // Last, so the first told to stop: the drains below count from the signal.
      .init(service: shutdown),
    ]
    // First in the group, so shut down last (the group stops services in reverse order): the
    // ticker's last tick is queued before the recorder drains its queue.
    if let history {
      services.insert(
        .init(service: HistoryService(recorder: history, logger: logger, shutdown: shutdown)), at: 0
      )
    }
    if let alertmanager {
      services.insert(
        .init(
          service: AlertmanagerService(notifier: alertmanager, logger: logger, shutdown: shutdown)),
        at: 0)
    }
    let group = ServiceGroup(
      configuration: .init(
        services: services,
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    do {
      try await group.run()
      let published = state.read { ($0.lastTick?.snapshot.peers.count ?? 0, $0.alerts.count) }
      let uptime = ContinuousClock.now - startedAt
      logger.info(
        "netquality stopped",
        metadata: [
          "uptime_seconds": "\(uptime.components.seconds)", "peers": "\(published.0)",
          "alerts_firing": "\(published.1)",
          "history_ticks_written": "\(history?.counters.ticksWritten ?? 0)",
          "history_ticks_unwritten": "\(history?.counters.queueLength ?? 0)",
        ])
      if exitsWhenStopped {
        // Whatever stdio still buffers (the dashboard on stdout) is flushed by exit(3).
        exit(EXIT_SUCCESS)
      }
    } catch let error as IOError {
      // The listener's bind(2) failed: said by its errno, not by matching its text.
      let address = "\(configuration.listenHost):\(configuration.listenPort)"
      switch error.errnoCode {
      case EADDRINUSE:
        throw AgentError.cannotListen(address: address, reason: "address already in use")
      case EADDRNOTAVAIL:
        throw AgentError.cannotListen(address: address, reason: "no interface has this address")
      case EACCES:
        throw AgentError.cannotListen(address: address, reason: "permission denied")
      default:
        throw error
      }
    }
  }
}
