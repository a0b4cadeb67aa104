import NetQualityConfig
import NetQualityCore

/// What the agent runs with, for `/api/v1/status`: the configuration in effect after the last
/// start or reload, and what a reload could not apply.
public struct AgentStatus: Sendable {
  public var configurationFile: String?
  public var configuration = AgentConfiguration()
  /// The local networks in effect (configured, or the capture interfaces' addresses).
  public var localNetworks: [NetworkPrefix] = []
  /// Keys changed in the file that take effect only after a restart.
  public var restartPending: [String] = []
  public var lastReloadSuccessful = true
  /// Unix time of the last successful start or reload.
  public var lastReloadTime: Double?

  public init() {}
}
