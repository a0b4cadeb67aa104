import Foundation
import Logging
import NetQualityConfig
import NetQualityExport
import ServiceLifecycle

/// Runs the Alertmanager notifier's thread for the agent's life: started with the agent, and
/// at shutdown given a few seconds to post what is queued (the last tick's alerts included).
struct AlertmanagerService: Service {
  let notifier: AlertmanagerNotifier
  let logger: Logger

  /// What shutdown waits for the final flush, at most.
  static let flushSeconds = 5.0
  /// The `job` label of every alert unless `alertmanager.labels` names another.
  static let job = "netquality"

  /// The notifier `configuration` asks for, nil without an Alertmanager URL.
  static func notifier(_ configuration: AgentConfiguration, logger: Logger) -> AlertmanagerNotifier?
  {
    let alertmanager = configuration.alertmanager
    guard alertmanager.enabled else { return nil }
    let hostName = ProcessInfo.processInfo.hostName
    var labels = ["instance": "\(hostName):\(configuration.listenPort)", "job": job]
    labels.merge(alertmanager.labels) { $1 }
    let context = AlertmanagerPayload.Context(
      labels: labels, generatorURL: generatorURL(configuration, hostName: hostName),
      rules: configuration.engine.alertRules,
      tickIntervalSeconds: configuration.engine.tickIntervalSeconds)
    let settings = AlertmanagerNotifier.Settings(
      urls: alertmanager.urls, timeoutSeconds: alertmanager.timeoutSeconds,
      resendIntervalSeconds: alertmanager.resendIntervalSeconds,
      queueCapacity: alertmanager.queueCapacity, context: context)
    return AlertmanagerNotifier(
      settings: settings, client: HTTPPostClient(userAgent: "netquality/\(BuildInfo.version)")
    ) { level, message in
      switch level {
      case .info: logger.info("\(message)")
      case .warning: logger.warning("\(message)")
      }
    }
  }

  /// The agent's alert list, at the listen address (this host's name where it listens on
  /// every address).
  static func generatorURL(_ configuration: AgentConfiguration, hostName: String) -> String {
    var host = configuration.listenHost
    if host == "0.0.0.0" || host == "::" { host = hostName }
    if host.contains(":") { host = "[\(host)]" }
    return "http://\(host):\(configuration.listenPort)/api/v1/alerts"
  }

  func run() async throws {
    notifier.start()
    try? await gracefulShutdown()
    let deadline = Date().addingTimeInterval(Self.flushSeconds)
    let flushed = await Task.detached { notifier.stop(deadline: deadline) }.value
    if !flushed {
      let unsent = notifier.counters.queueLength
      logger.warning(
        "alertmanager: stopped with \(unsent) alert notifications unsent (final flush bounded to \(Int(Self.flushSeconds)) s)"
      )
    }
  }
}
