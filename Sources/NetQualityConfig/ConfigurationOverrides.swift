import NetQualityCore

/// What the command line says over the file (`run --interface`, `--local`, `--listen`,
/// `--web.telemetry-path`, `--filter`, `--dashboard`, `--web.config.file`, `--demo`): applied
/// to the file at start and to every reloaded file, so a reload never undoes a flag.
public struct ConfigurationOverrides: Sendable, Equatable {
  public var interfaces: [String]?
  public var localNetworks: [NetworkPrefix]?
  /// `--web.listen-address`, repeatable: every address, the first first.
  public var listen: [ListenAddress]?
  /// `--web.telemetry-path`.
  public var telemetryPath: String?
  public var bpfFilter: String?
  /// A path, or `-` for standard output.
  public var dashboardFile: String?
  /// `--web.config.file`.
  public var webConfigFile: String?

  public init() {}

  public func applied(to configuration: AgentConfiguration) -> AgentConfiguration {
    var result = configuration
    if let interfaces { result.interfaces = interfaces }
    if let localNetworks { result.localNetworks = localNetworks }
    if let listen, !listen.isEmpty { result.listenAddresses = listen }
    if let telemetryPath { result.telemetryPath = telemetryPath }
    if let bpfFilter { result.bpfFilter = bpfFilter }
    if let dashboardFile { result.dashboardFile = dashboardFile }
    if let webConfigFile { result.webConfigFile = webConfigFile }
    return result
  }
}
