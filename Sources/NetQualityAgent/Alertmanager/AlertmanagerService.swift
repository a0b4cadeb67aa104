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
  let shutdown: ShutdownClock

  /// Until when after the stop signal the final flush may go on (stopped after the history's
  /// drain: `HistoryService.drainSecondsAfterSignal`); the agent exits within 5 s of SIGTERM.
  static let flushSecondsAfterSignal = 4.0
  /// The `job` label of every alert unless `alertmanager.labels` names another.
  static let job = "netquality"

  /// The notifier `configuration` asks for, nil without an Alertmanager URL; `scheme`: the
  /// agent's own, for the links in its alerts. Fails when `tls_config`'s files do not make a
  /// TLS context (a certificate that does not parse).
  static func notifier(
    _ configuration: AgentConfiguration, scheme: String = "http", logger: Logger
  ) throws -> AlertmanagerNotifier? {
    let alertmanager = configuration.alertmanager
    guard alertmanager.enabled else { return nil }
    let hostName = ProcessInfo.processInfo.hostName
    var labels = ["instance": instance(configuration, hostName: hostName), "job": job]
    labels.merge(alertmanager.labels) { $1 }
    let context = AlertmanagerPayload.Context(
      labels: labels,
      generatorURL: generatorURL(configuration, hostName: hostName, scheme: scheme),
      rules: configuration.engine.alertRules,
      tickIntervalSeconds: configuration.engine.tickIntervalSeconds,
      runbookURL: runbookURL(configuration, hostName: hostName, scheme: scheme))
    // The context is made only for https URLs: http ones never use it.
    let tlsContext =
      try alertmanager.urls.contains(where: \.isHTTPS)
      ? AlertmanagerTLSContext.make(alertmanager.http.tls) : nil
    let settings = AlertmanagerNotifier.Settings(
      urls: alertmanager.urls, timeoutSeconds: alertmanager.timeoutSeconds,
      resendIntervalSeconds: alertmanager.resendIntervalSeconds,
      queueCapacity: alertmanager.queueCapacity, context: context, tlsContext: tlsContext,
      serverName: alertmanager.http.tls.serverName,
      authorization: alertmanager.http.authorizationHeader)
    return AlertmanagerNotifier(
      settings: settings, client: HTTPPostClient(userAgent: "netquality/\(BuildInfo.version)")
    ) { level, message in
      switch level {
      case .info: logger.info("\(message)")
      case .warning: logger.warning("\(message)")
      }
    }
  }

  /// The `instance` label unless `alertmanager.labels` names one: the agent as Prometheus
  /// usually scrapes it, so that the alert it pushes and the one Prometheus forwards from its
  /// scrape (config/rules/netquality-agent-alerts.yml) carry the same labels and Alertmanager
  /// takes them for one. That is the listen address (`127.0.0.1:9470`, `[2001:db8::5]:9470`)
  /// when the agent listens on one address, and this host's name with the port when it
  /// listens on every address (a target is then usually written with the host's name).
  static func instance(_ configuration: AgentConfiguration, hostName: String) -> String {
    "\(address(configuration, hostName: hostName)):\(configuration.listenPort)"
  }

  /// The agent's alert list, at the address of `instance`.
  static func generatorURL(
    _ configuration: AgentConfiguration, hostName: String, scheme: String = "http"
  ) -> String {
    "\(scheme)://\(instance(configuration, hostName: hostName))/api/v1/alerts"
  }

  /// The runbook of the pushed alerts: `alerts.runbook_url`, or this agent's own page at the
  /// address of `instance` (`AgentAlertRules.agentRunbookURL`).
  static func runbookURL(
    _ configuration: AgentConfiguration, hostName: String = ProcessInfo.processInfo.hostName,
    scheme: String
  ) -> String {
    guard configuration.alertRunbookURL.isEmpty else { return configuration.alertRunbookURL }
    return AgentAlertRules.agentRunbookURL(
      scheme: scheme, instance: instance(configuration, hostName: hostName))
  }

  /// The listen address (its host name when it was written with one), or this host's name
  /// for a wildcard; an IPv6 address in brackets.
  private static func address(_ configuration: AgentConfiguration, hostName: String) -> String {
    if let name = configuration.listenHostName { return name }
    let host = configuration.listenHost
    if host == "0.0.0.0" || host == "::" || host.isEmpty { return hostName }
    return host.contains(":") ? "[\(host)]" : host
  }

  func run() async throws {
    notifier.start()
    try? await gracefulShutdown()
    let deadline = shutdown.deadline(afterSignal: Self.flushSecondsAfterSignal)
    let flushed = await Task.detached { notifier.stop(deadline: deadline) }.value
    if !flushed {
      let unsent = notifier.counters.queueLength
      logger.warning(
        "alertmanager: stopped with \(unsent) alert notifications unsent (final flush bounded to \(Self.flushSecondsAfterSignal) s after the stop signal)"
      )
    }
  }
}
