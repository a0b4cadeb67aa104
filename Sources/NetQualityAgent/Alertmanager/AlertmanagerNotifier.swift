import Foundation
import NIOCore
import NIOSSL
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import Synchronization

/// Pushes the agent's alerts to Alertmanager from a thread of its own, like the history's
/// recorder: a tick only leaves the alerts firing after it (and its events, for resolution
/// times) in a mailbox, never waits on the network. The thread turns them into notifications
/// (`AlertmanagerSchedule`: new, resent, resolved), queues them (`AlertmanagerQueue`: bounded,
/// the oldest dropped and counted) and posts batches to every Alertmanager; a batch is
/// delivered once one of them accepts it, and retried with backoff while none does. A failing
/// Alertmanager is logged once when it starts failing and once when it recovers.
public final class AlertmanagerNotifier: Sendable {
  struct Settings: Sendable {
    var urls: [AlertmanagerURL]
    var timeoutSeconds: Double
    var resendIntervalSeconds: Double
    var queueCapacity: Int
    var context: AlertmanagerPayload.Context
    /// The TLS context for https URLs (`alertmanager.tls_config`), and the name to check
    /// instead of the URL's host (`server_name`).
    var tlsContext: NIOSSLContext?
    var serverName: String?
    /// The Authorization header at start (`basic_auth` or `authorization`); a reload's fresh
    /// read of their files replaces it (`reauthorize`).
    var authorization: String?
    /// Alerts per request. 256: Prometheus' notifier `DefaultMaxBatchSize`
    /// (https://github.com/prometheus/prometheus/blob/main/notifier/notifier.go).
    var batchSize = 256
    /// The first wait after a failure (see `AlertmanagerBackoff`).
    var backoffInitialSeconds = 1.0

    var backoff: AlertmanagerBackoff {
      AlertmanagerBackoff(
        resendIntervalSeconds: resendIntervalSeconds, initialSeconds: backoffInitialSeconds)
    }
  }

  /// One Alertmanager's figures, for metrics.
  struct TargetCounters: Sendable, Equatable {
    var url: AlertmanagerURL
    /// Alerts it accepted.
    var sent: Int64 = 0
    /// Alerts in requests that failed (no answer, or an error status).
    var failed: Int64 = 0
    /// Request durations, answered or not.
    var requestSeconds = DelayHistogram(boundsSeconds: AlertmanagerNotifier.requestBoundsSeconds)
    /// Whether its last request was accepted (nil before the first).
    var up: Bool?
    /// Since when it has been failing (Unix seconds), and alerts failed since.
    var failingSince: Double?
    var failedSinceFailing: Int64 = 0
  }

  /// Everything the notifier did, for metrics and tests.
  struct Counters: Sendable, Equatable {
    var targets: [TargetCounters]
    var queueLength = 0
    var queueCapacity = 0
    /// Dropped because the queue was full.
    var droppedQueueFull: Int64 = 0
    /// Dropped because every Alertmanager refused the batch as invalid (a 4xx answer).
    var droppedRejected: Int64 = 0
    /// Alerts Alertmanager is being told are firing.
    var activeAlerts = 0
  }

  /// Log lines: one when an Alertmanager starts failing, one when it recovers.
  enum LogLevel: Sendable { case info, warning }
  typealias Log = @Sendable (LogLevel, String) -> Void

  /// Request duration buckets: client_golang's `DefBuckets`, 5 ms to 10 s
  /// (https://github.com/prometheus/client_golang/blob/main/prometheus/histogram.go).
  static let requestBoundsSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
  /// Ticks of events kept while the thread is busy (for the resolution times).
  static let mailboxTicks = 64

  let settings: Settings
  private let client: HTTPPostClient
  private let log: Log
  private let shared: Mutex<Shared>
  private let wake = NSCondition()

  /// What the tick hands over: the latest firing set and the events since the thread last
  /// looked (and a reload's rules).
  private struct Mailbox: Sendable {
    var firing: [Alert]?
    var time = CaptureTime(nanosecondsSinceEpoch: 0)
    var events: [[EngineEvent]] = []
    var context: AlertmanagerPayload.Context?
  }

  /// The Authorization header in use (a secret), replaced by a reload.
  private let authorization: Mutex<String?>

  /// What the tick and the thread share, each holding the lock for a moment only.
  private struct Shared: Sendable {
    var mailbox = Mailbox()
    var counters: Counters
    var stopping = false
    var stopDeadline = Date.distantFuture
    var stopped = false
  }

  /// The thread's own: what to send when, and what waits to be sent. Never behind the lock,
  /// so a tick never waits for the schedule's pass over the firing alerts.
  private struct Outbox {
    var schedule: AlertmanagerSchedule
    var queue: AlertmanagerQueue
  }

  init(settings: Settings, client: HTTPPostClient = HTTPPostClient(), log: @escaping Log) {
    self.settings = settings
    self.client = client
    self.log = log
    authorization = Mutex(settings.authorization)
    shared = Mutex(
      Shared(
        counters: Counters(
          targets: settings.urls.map { TargetCounters(url: $0) },
          queueCapacity: settings.queueCapacity)))
  }

  var counters: Counters { shared.withLock { $0.counters } }

  /// Starts the sending thread.
  func start() {
    let thread = Thread { [self] in senderLoop() }
    thread.name = "netquality-alertmanager"
    thread.start()
  }

  /// Hands a tick's alerts over; never blocks on the network.
  func publish(firing: [Alert], events: [EngineEvent], at time: CaptureTime) {
    shared.withLock { shared in
      shared.mailbox.firing = firing
      shared.mailbox.time = time
      if !events.isEmpty {
        if shared.mailbox.events.count >= Self.mailboxTicks { shared.mailbox.events.removeFirst() }
        shared.mailbox.events.append(events)
      }
    }
    signal()
  }

  /// A reload's alert rules, tick interval and runbook, for the annotations of the alerts
  /// from now on.
  func reconfigure(rules: [AlertRule], tickIntervalSeconds: Double, runbookURL: String) {
    shared.withLock { shared in
      var context = shared.mailbox.context ?? settings.context
      context.rules = rules
      context.tickIntervalSeconds = tickIntervalSeconds
      context.runbookURL = runbookURL
      shared.mailbox.context = context
    }
  }

  /// A reload's fresh read of `password_file` or `credentials_file`: the header from the next
  /// request on.
  func reauthorize(_ http: AlertmanagerHTTPSettings) {
    authorization.withLock { $0 = http.authorizationHeader }
  }

  /// The TLS of a request to `url`: none for http.
  func tls(for url: AlertmanagerURL) -> HTTPPostClient.TLS? {
    guard url.isHTTPS, let context = settings.tlsContext else { return nil }
    // SNI takes a name, not an address (RFC 6066 section 3); NIOSSL checks an address
    // against the address connected to.
    let name = settings.serverName ?? url.host
    let isAddress = (try? SocketAddress(ipAddress: name, port: 0)) != nil
    return HTTPPostClient.TLS(context: context, serverName: isAddress ? nil : name)
  }

  /// Sends what is queued (one attempt, until `deadline`), then stops the thread. Returns
  /// false when the deadline passed first or alerts were left unsent.
  func stop(deadline: Date) -> Bool {
    shared.withLock {
      $0.stopping = true
      $0.stopDeadline = deadline
    }
    wake.lock()
    wake.broadcast()
    while !shared.withLock({ $0.stopped }) {
      if !wake.wait(until: deadline) { break }
    }
    wake.unlock()
    return shared.withLock { $0.stopped && $0.counters.queueLength == 0 }
  }

  // MARK: - The sending thread

  private func senderLoop() {
    var outbox = Outbox(
      schedule: AlertmanagerSchedule(
        resendIntervalSeconds: settings.resendIntervalSeconds, context: settings.context),
      queue: AlertmanagerQueue(capacity: settings.queueCapacity))
    var backoff = settings.backoff
    var retryAt = Date.distantPast
    while !waitForWork(retryAt: retryAt, queued: !outbox.queue.isEmpty) {
      absorbMailbox(into: &outbox)
      while Date() >= retryAt, !shared.withLock({ $0.stopping }), let batch = nextBatch(outbox) {
        if send(batch, timeoutSeconds: settings.timeoutSeconds, from: &outbox.queue) {
          backoff.succeeded()
          retryAt = .distantPast
        } else {
          retryAt = Date().addingTimeInterval(backoff.failed())
        }
        absorbMailbox(into: &outbox)
      }
    }
    flush(&outbox)
    shared.withLock { $0.stopped = true }
    signal(all: true)
  }

  /// The final flush: what the last tick left, then every batch queued, one attempt each,
  /// each request's timeout cut to what is left before the stop's deadline.
  private func flush(_ outbox: inout Outbox) {
    absorbMailbox(into: &outbox)
    let deadline = shared.withLock { $0.stopDeadline }
    while let batch = nextBatch(outbox) {
      let left = deadline.timeIntervalSinceNow
      guard left > 0.05,
        send(batch, timeoutSeconds: min(settings.timeoutSeconds, left), from: &outbox.queue)
      else { return }
    }
  }

  /// Waits for a tick's alerts, a retry coming due, or the stop; true to stop.
  private func waitForWork(retryAt: Date, queued: Bool) -> Bool {
    wake.lock()
    defer { wake.unlock() }
    while true {
      let (mail, stopping) = shared.withLock { ($0.mailbox.firing != nil, $0.stopping) }
      if stopping { return true }
      if mail { return false }
      if queued && Date() >= retryAt { return false }
      if queued {
        _ = wake.wait(until: retryAt)
      } else {
        wake.wait()
      }
    }
  }

  /// Turns the mailbox into queued notifications: the mailbox taken under the lock, the
  /// schedule's pass made outside it.
  private func absorbMailbox(into outbox: inout Outbox) {
    let mailbox = shared.withLock { shared in
      let mailbox = shared.mailbox
      shared.mailbox = Mailbox()
      return mailbox
    }
    if let context = mailbox.context { outbox.schedule.context = context }
    guard let firing = mailbox.firing else { return }
    var resolvedAt: [String: CaptureTime] = [:]
    for events in mailbox.events {
      for event in events where event.kind == .alertResolved {
        if let alert = event.alert { resolvedAt[alert.id] = alert.end ?? event.time }
      }
    }
    let due = outbox.schedule.due(firing: firing, resolvedAt: resolvedAt, at: mailbox.time)
    for notification in due { outbox.queue.push(notification) }
    let (length, dropped, active) = (
      outbox.queue.count, outbox.queue.dropped, outbox.schedule.activeCount
    )
    shared.withLock {
      $0.counters.queueLength = length
      $0.counters.droppedQueueFull = dropped
      $0.counters.activeAlerts = active
    }
  }

  private func nextBatch(_ outbox: Outbox) -> [AlertmanagerQueue.Entry]? {
    let batch = outbox.queue.first(settings.batchSize)
    return batch.isEmpty ? nil : batch
  }

  /// How one Alertmanager answered a batch.
  private enum Outcome {
    case accepted
    /// A 4xx other than 408 and 429: the same request would be refused again.
    case rejected(String)
    case failed(String)
  }

  /// Posts `batch` to every Alertmanager at once; true once it is off the queue (accepted by
  /// one, or refused as invalid by all).
  private func send(
    _ batch: [AlertmanagerQueue.Entry], timeoutSeconds: Double,
    from queue: inout AlertmanagerQueue
  ) -> Bool {
    let body = AlertmanagerPayload.body(batch.map(\.notification))
    let started = ContinuousClock.now
    let header = authorization.withLock { $0 }
    let futures = settings.urls.map { url in
      client.post(
        host: url.host, port: url.port, authority: url.authority, path: url.alertsPath,
        body: body, timeoutSeconds: timeoutSeconds, tls: tls(for: url), authorization: header)
    }
    var outcomes: [Outcome] = []
    for future in futures {
      // The request's own deadline bounds this wait.
      let outcome: Outcome
      do {
        let response = try future.wait()
        switch response.status {
        case 200..<300: outcome = .accepted
        case 408, 429, 500...: outcome = .failed(Self.statusReason(response))
        default: outcome = .rejected(Self.statusReason(response))
        }
      } catch {
        outcome = .failed(HTTPPostClient.reason(error))
      }
      outcomes.append(outcome)
    }
    let seconds = TickService.seconds(ContinuousClock.now - started)
    let accepted = outcomes.contains {
      if case .accepted = $0 { return true } else { return false }
    }
    let allRejected = outcomes.allSatisfy {
      if case .rejected = $0 { return true } else { return false }
    }
    var lines: [(LogLevel, String)] = []
    if accepted || allRejected { queue.remove(batch) }
    let length = queue.count
    shared.withLock { shared in
      for (index, outcome) in outcomes.enumerated() {
        lines += record(
          outcome, alerts: batch.count, seconds: seconds, in: &shared.counters.targets[index])
      }
      if !accepted && allRejected { shared.counters.droppedRejected += Int64(batch.count) }
      shared.counters.queueLength = length
    }
    for (level, line) in lines { log(level, line) }
    return accepted || allRejected
  }

  /// Counts one Alertmanager's outcome; the log line when it starts failing or recovers.
  private func record(
    _ outcome: Outcome, alerts: Int, seconds: Double, in target: inout TargetCounters
  ) -> [(LogLevel, String)] {
    target.requestSeconds.add(seconds)
    let now = Date().timeIntervalSince1970
    switch outcome {
    case .accepted:
      target.sent += Int64(alerts)
      target.up = true
      guard let since = target.failingSince else { return [] }
      let line =
        "alertmanager \(target.url): delivering again after \(Int((now - since).rounded())) s "
        + "(\(target.failedSinceFailing) alerts failed meanwhile)"
      target.failingSince = nil
      target.failedSinceFailing = 0
      return [(.info, line)]
    case .rejected(let reason), .failed(let reason):
      target.failed += Int64(alerts)
      target.failedSinceFailing += Int64(alerts)
      target.up = false
      guard target.failingSince == nil else { return [] }
      target.failingSince = now
      let retry =
        if case .rejected = outcome {
          "alerts it refuses are dropped (counted)"
        } else {
          "retrying with backoff up to \(Int(settings.backoff.maxSeconds)) s, "
            + "\(settings.queueCapacity) alerts queued at most"
        }
      return [(.warning, "alertmanager \(target.url): cannot deliver alerts: \(reason); \(retry)")]
    }
  }

  private static func statusReason(_ response: HTTPPostClient.Response) -> String {
    let body = response.body.split(whereSeparator: \.isNewline).joined(separator: " ")
    return "answered \(response.status)" + (body.isEmpty ? "" : ": \(body.prefix(200))")
  }

  private func signal(all: Bool = false) {
    wake.lock()
    if all { wake.broadcast() } else { wake.signal() }
    wake.unlock()
  }
}

extension AlertmanagerNotifier.Counters {
  /// The notifier's part of `/metrics`.
  var metricsCollector: AlertmanagerCollector {
    AlertmanagerCollector(
      targets: targets.map {
        .init(
          url: $0.url.description, sent: $0.sent, failed: $0.failed, up: $0.up,
          requestSeconds: $0.requestSeconds)
      },
      queueLength: queueLength, queueCapacity: queueCapacity, droppedQueueFull: droppedQueueFull,
      droppedRejected: droppedRejected, activeAlerts: activeAlerts)
  }
}
