import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore

/// The agent's HTTP endpoints on Hummingbird: Prometheus `/metrics` rendered from the last
/// tick at scrape time, health and readiness, the status page and the JSON API; every
/// connection held to `HTTPLimits` (see `ConnectionRegistry`), every request to the web
/// configuration (`WebSecurity`: TLS, basic auth, headers).
enum HTTPServer {
  /// Every path served, each for GET and HEAD.
  static let paths: Set<String> = [
    "/metrics", "/-/healthy", "/-/ready", "/", "/api/v1/peers", "/api/v1/streams",
    "/api/v1/alerts", "/api/v1/status", "/api/v1/history",
  ]

  /// `onServerRunning` runs once the listener is bound, so "listening on" is only ever said
  /// of a socket that is listening.
  static func application(
    host: String, port: Int, state: AgentState, registry: ConnectionRegistry,
    security: WebSecurity = WebSecurity(.none),
    onServerRunning: @escaping @Sendable () -> Void = {}
  ) throws -> some ApplicationProtocol {
    let http1 = HTTPServerBuilder.http1(
      configuration: .init(
        additionalChannelHandlers: [
          ConnectionGuardHandler(registry: registry),
          TLSFailureCounter(counters: security.counters),
        ]))
    let server =
      try security.tls.map { tls in
        try HTTPServerBuilder.tls(
          http1,
          configuration: TLSChannelConfiguration(
            tlsConfiguration: tls.configuration,
            customVerificationCallback: tls.customVerification))
      } ?? http1
    return Application(
      router: router(state: state, registry: registry, security: security),
      server: server,
      configuration: .init(address: .hostname(host, port: port), serverName: "netquality"),
      onServerRunning: { _ in onServerRunning() },
      logger: .init(label: "netquality.http"))
  }

  /// The routes, testable without a socket (HummingbirdTesting's `.router`).
  static func router(
    state: AgentState, registry: ConnectionRegistry? = nil,
    security: WebSecurity = WebSecurity(.none)
  ) -> Router<AgentRequestContext> {
    let router = Router(context: AgentRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: WebSecurityMiddleware(security: security))
    router.add(middleware: MethodMiddleware(paths: paths))
    router.get("/metrics") { request, _ in
      metrics(
        state, http: registry?.counters, security: security,
        gzip: Gzip.isAccepted(by: request.headers[.acceptEncoding]))
    }
    router.get("/-/healthy") { _, _ in text("OK\n") }
    router.get("/-/ready") { _, _ -> Response in
      state.read(\.ready)
        ? text("OK\n") : text("captures not running yet\n", status: .serviceUnavailable)
    }
    router.get("/") { _, context in
      await untilClientGoes(context.channel, registry: registry) { await statusPage(state) }
    }
    router.get("/api/v1/peers") { request, _ -> Response in
      await peers(state, query: request.uri.queryParameters)
    }
    router.get("/api/v1/streams") { request, _ -> Response in
      await streams(state, query: request.uri.queryParameters)
    }
    router.get("/api/v1/status") { _, _ -> Response in
      json(StatusJSON.render(state.read(\.status)))
    }
    router.get("/api/v1/alerts") { _, _ -> Response in
      json(.object([("alerts", .array(state.read(\.alerts).map(TimelineJSON.alert)))]))
    }
    router.get("/api/v1/history") { request, context -> Response in
      await untilClientGoes(context.channel, registry: registry) {
        await history(state, query: request.uri.queryParameters)
      }
    }
    return router
  }

  /// Runs `operation` in a task that is cancelled when the client of `channel` goes away
  /// (what it awaits — a history read — is then interrupted and its place in the queue freed).
  static func untilClientGoes(
    _ channel: any Channel, registry: ConnectionRegistry?,
    _ operation: @escaping @Sendable () async -> Response
  ) async -> Response {
    let task = Task { await operation() }
    let token = registry?.whenClientGone(channel) { task.cancel() }
    defer { if let token { registry?.forget(channel, token: token) } }
    return await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
  }

  static func metrics(
    _ state: AgentState, http: ConnectionRegistry.Counters?, security: WebSecurity? = nil,
    gzip: Bool = false
  ) -> Response {
    let started = ContinuousClock.now
    var exposition = PrometheusExposition()
    var tickSection = ""
    exposition.version = BuildInfo.version
    let previous: Double? = state.read { published in
      exposition.interfaces = published.interfaces.values.sorted { $0.name < $1.name }
      exposition.capture = published.capture
      exposition.trackedStreams = published.trackedStreams
      exposition.streamSlots = published.streamSlots
      let timing = published.tickTiming
      exposition.tickDurations = [
        ("harvest", timing.harvestSeconds), ("score", timing.scoreSeconds),
        ("publish", timing.publishSeconds),
      ]
      exposition.ticksSkipped = timing.skippedTicks
      exposition.tickLatenessSeconds = timing.lateSeconds
      exposition.configReloadSuccessful = published.status.lastReloadSuccessful
      exposition.configReloadTime = published.status.lastReloadTime
      exposition.http = http.map {
        .init(
          open: $0.open, evicted: $0.evicted, refused: $0.refused, timedOut: $0.timedOut,
          pipelining: $0.pipelining, notReading: $0.notReading)
      }
      // Rendered at the tick; rendered now only where a tick was published without it.
      tickSection =
        published.tickMetrics
        ?? TickMetrics(
          published.lastTick?.snapshot, alerts: published.alerts, settings: published.metrics
        ).render()
      exposition.probeSenders.senders = published.probeSenders.sorted { $0.key < $1.key }.map {
        target, counters in
        .init(
          target: target,
          refused: [
            ("foreign", counters.foreign), ("malformed", counters.malformed),
            ("bad_hmac", counters.badHMAC),
          ],
          missed: [
            ("loop_late", counters.missedSends), ("send_buffer_full", counters.sendBufferFull),
            ("send_error", counters.sendErrors),
          ])
      }
      exposition.reflector = published.reflector.map { counters in
        .init(
          receivedPackets: Int64(counters.packetsReceived),
          receivedBytes: Int64(counters.bytesReceived),
          reflectedPackets: Int64(counters.packetsReflected),
          reflectedBytes: Int64(counters.bytesReflected),
          refused: ReflectorRefusal.allCases.map { ($0.rawValue, Int64(counters.refused($0))) },
          sessions: Int64(counters.sessionsActive),
          userSpaceTimestamps: Int64(counters.userSpaceTimestamps),
          sendErrors: Int64(counters.sendErrors))
      }
      return published.lastRenderSeconds
    }
    let dashboard = state.dashboardCounters
    exposition.dashboard = .init(
      failedWrites: Int64(dashboard.failedWrites.load(ordering: .relaxed)),
      rotations: Int64(dashboard.rotations.load(ordering: .relaxed)),
      rotationFailures: Int64(dashboard.rotationFailures.load(ordering: .relaxed)))
    if let history = state.history, let readers = state.historyReaders {
      let counters = history.counters
      let reads = readers.queue.counters
      exposition.storage = .init(
        ticksWritten: counters.ticksWritten, rowsWritten: counters.rowsWritten,
        ticksDropped: counters.ticksDropped,
        errors: Dictionary(
          uniqueKeysWithValues: counters.errors.map { ($0.key.rawValue, $0.value) }),
        errorKinds: HistoryFault.Kind.allCases.map(\.rawValue),
        filesMovedAside: counters.filesMovedAside, writeSecondsSum: counters.writeSecondsSum,
        writeSecondsMax: counters.writeSecondsMax,
        maintenanceSecondsSum: counters.maintenanceSecondsSum,
        databaseBytes: counters.databaseBytes, queueLength: counters.queueLength,
        healthy: counters.fault == nil,
        reads: .init(
          answered: Int64(reads.completed.load(ordering: .relaxed)),
          busy: Int64(reads.refusedBusy.load(ordering: .relaxed)),
          cancelled: Int64(reads.cancelled.load(ordering: .relaxed)),
          timedOut: Int64(reads.timedOut.load(ordering: .relaxed))))
    }
    exposition.web = security.map(\.metricsCollector)
    exposition.alertmanager = state.alertmanager?.counters.metricsCollector
    var body = exposition.render(previousRenderSeconds: previous, tickSection: tickSection)
    var headers: HTTPFields = [.contentType: PrometheusExposition.contentType]
    headers[.vary] = "Accept-Encoding"
    let compressed = gzip ? body.withUTF8 { Gzip.compress(UnsafeRawBufferPointer($0)) } : nil
    let elapsed = ContinuousClock.now - started
    state.update {
      $0.lastRenderSeconds =
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
    guard let compressed else {
      return Response(
        status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
    headers[.contentEncoding] = "gzip"
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: compressed)))
  }

  static func text(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status, headers: [.contentType: "text/plain; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(string: body)))
  }

  static func html(_ body: String) -> Response {
    Response(
      status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(string: body)))
  }

  static func json(_ value: JSONValue) -> Response {
    Response(
      status: .ok, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(string: value.text + "\n")))
  }
}
