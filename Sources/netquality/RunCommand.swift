import ArgumentParser
import Foundation
import Logging
import NetQualityAgent
import NetQualityCapture
import NetQualityConfig
import NetQualityCore

struct RunCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract:
      "Run the agent: live capture, 2 s scoring, /metrics, JSON API and the text dashboard.",
    discussion: """
      With no --config every built-in default applies (config/netquality.yaml documents them). \
      SIGTERM or SIGINT stops it cleanly; SIGHUP reloads the configuration file.
      """
  )

  @Option(
    name: [.customLong("config"), .customLong("config.file")],
    help: ArgumentHelp("YAML configuration file.", valueName: "FILE"))
  var config: String?

  @Option(
    name: .customLong("interface"),
    help: ArgumentHelp(
      "Capture on this interface (repeatable; overrides the file).", valueName: "NAME"))
  var interfaces: [String] = []

  @Option(
    name: .customLong("local"),
    help: ArgumentHelp("A local network (repeatable; overrides the file).", valueName: "CIDR"))
  var localNetworks: [String] = []

  @Option(
    name: [.customLong("listen"), .customLong("web.listen-address")],
    help: ArgumentHelp(
      "Listen address (repeatable: every one listens; overrides the file's).",
      valueName: "HOST:PORT"))
  var listen: [String] = []

  @Option(
    name: .customLong("web.telemetry-path"),
    help: ArgumentHelp(
      "Path under which to expose metrics (default /metrics; overrides the file's "
        + "telemetry_path).", valueName: "PATH"))
  var telemetryPath: String?

  @Flag(
    name: .customLong("web.systemd-socket"),
    help: ArgumentHelp(
      "Serve HTTP on the listening sockets systemd passes (socket activation) instead of "
        + "--web.listen-address, which still names the agent."))
  var systemdSocket = false

  @Option(help: ArgumentHelp("BPF capture filter (overrides the file).", valueName: "FILTER"))
  var filter: String?

  @Option(
    help: ArgumentHelp(
      "Append dashboard frames to this file, or '-' for stdout.", valueName: "PATH"))
  var dashboard: String?

  @Option(
    name: .customLong("web.config.file"),
    help: ArgumentHelp(
      "TLS, basic auth and headers for the HTTP server, in Prometheus exporters' web "
        + "configuration format (overrides the file's web_config_file).", valueName: "FILE"))
  var webConfigFile: String?

  @Flag(help: "Also run a demo call on loopback (peer 127.0.0.2, 2 % loss), captured on lo.")
  var demo = false

  @Option(
    name: .customLong("log.level"),
    help: ArgumentHelp(
      "Only log messages of this level or above.", valueName: "debug|info|warn|error"))
  var logLevel = "info"

  @Option(
    name: .customLong("log.format"),
    help: ArgumentHelp("Log lines as logfmt or JSON.", valueName: "logfmt|json"))
  var logFormat = "logfmt"

  @Flag(
    name: .customLong("web.enable-lifecycle"),
    help: "Accept POST /-/reload (as SIGHUP), like Prometheus' flag of the same name.")
  var enableLifecycle = false

  func validate() throws {
    guard StructuredLogHandler.level(logLevel) != nil else {
      throw ValidationError("--log.level \(logLevel): one of debug, info, warn, error")
    }
    guard StructuredLogHandler.Format(rawValue: logFormat) != nil else {
      throw ValidationError("--log.format \(logFormat): logfmt or json")
    }
  }

  func run() async throws {
    let level = StructuredLogHandler.level(logLevel) ?? .info
    let format = StructuredLogHandler.Format(rawValue: logFormat) ?? .logfmt
    LoggingSystem.bootstrap { _ in StructuredLogHandler(format: format, level: level) }
    let logger = Logger(label: "netquality")
    let file = try config.map(loadConfiguration) ?? AgentConfiguration()
    var overrides = ConfigurationOverrides()
    if !interfaces.isEmpty { overrides.interfaces = interfaces }
    if let filter { overrides.bpfFilter = filter }
    if !localNetworks.isEmpty { overrides.localNetworks = try parseLocalNetworks(localNetworks) }
    if !listen.isEmpty {
      var addresses: [ListenAddress] = []
      for text in listen {
        let address: ListenAddress
        switch ListenAddress.parse(text) {
        case .success(let parsed): address = parsed
        case .failure(let failure):
          throw fail("--web.listen-address \(text): \(failure.message)", code: 2)
        }
        guard !addresses.contains(address) else {
          throw fail("--web.listen-address \(text): given twice", code: 2)
        }
        addresses.append(address)
      }
      overrides.listen = addresses
    }
    if let telemetryPath {
      if let problem = TelemetryPath.problem(telemetryPath) {
        throw fail("--web.telemetry-path: \(problem)", code: 2)
      }
      overrides.telemetryPath = telemetryPath
    }
    overrides.dashboardFile = dashboard
    overrides.webConfigFile = webConfigFile
    let web = try loadWebConfiguration(overrides.applied(to: file).webConfigFile)
    var demoSource: DemoSource?
    if demo {
      overrides.interfaces = ["lo"]
      if overrides.localNetworks == nil {
        overrides.localNetworks = [NetworkPrefix(DemoSource.localAddress)].compactMap { $0 }
      }
      logger.notice(
        "DEMO: a synthetic call from demo peer \(DemoSource.peerAddress) on loopback, captured on lo"
      )
      let source = DemoSource()
      do {
        try source.start()
      } catch {
        throw fail("\(error)")
      }
      demoSource = source
    }
    defer { demoSource?.stop() }
    var agent = Agent(
      file: file, configurationPath: config, overrides: overrides, web: web, logger: logger)
    if systemdSocket {
      switch SystemdSockets.take() {
      case .success(let descriptors): agent.systemdSockets = descriptors
      case .failure(let failure): throw fail(failure.description, code: 2)
      }
    }
    agent.enableLifecycle = enableLifecycle
    agent.exitsWhenStopped = true
    do {
      try await agent.run()
    } catch let error as CaptureError {
      throw fail(error.description)
    } catch let error as AgentError {
      throw fail(error.description)
    } catch {
      // Anything else the server or a service threw: still one line a user can read.
      throw fail(oneLine(error))
    }
  }
}

/// The first line of an error's description, without a type's decoration.
func oneLine(_ error: Error) -> String {
  let text = "\(error)"
  return text.split(separator: "\n").first.map(String.init) ?? text
}
