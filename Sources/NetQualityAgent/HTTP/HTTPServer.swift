import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import ServiceLifecycle

/// The agent's HTTP endpoints on Hummingbird: Prometheus `/metrics` rendered from the last
/// tick at scrape time, health and readiness, the status page and the JSON API; every
/// connection held to `HTTPLimits` (see `ConnectionRegistry`), every request to the web
/// configuration (`WebSecurity`: TLS, basic auth, headers).
enum HTTPServer {
  /// Every path served, each for GET and HEAD: the metrics at `metricsPath`
  /// (`--web.telemetry-path`) and the other routes.
  static func paths(metricsPath: String = TelemetryPath.defaultPath) -> Set<String> {
    TelemetryPath.otherRoutes.union([metricsPath])
  }

  /// The `Server` header of every answer.
  static let serverName = "netquality"

  /// How long Prometheus waits for this scrape (sent with every scrape).
  static let scrapeTimeoutHeader = HTTPField.Name("X-Prometheus-Scrape-Timeout-Seconds")

  /// `onServerRunning` runs once the listener is bound, so "listening on" is only ever said
  /// of a socket that is listening.
  static func application(
    host: String, port: Int, state: AgentState, registry: ConnectionRegistry,
    security: WebSecurity = WebSecurity(.none), reload: Reload? = nil,
    metricsPath: String = TelemetryPath.defaultPath,
    onServerRunning: @escaping @Sendable () -> Void = {}
  ) throws -> some ApplicationProtocol {
    let http1 = HTTPServerBuilder.http1(
      configuration: http1Configuration(registry: registry, security: security))
    let server =
      try security.tls.map { tls in
        try HTTPServerBuilder.tls(
          http1,
          configuration: TLSChannelConfiguration(
            tlsConfiguration: tls.configuration,
            customVerificationCallback: tls.customVerification))
      } ?? http1
    return Application(
      router: router(
        state: state, registry: registry, security: security, reload: reload,
        metricsPath: metricsPath),
      server: server,
      configuration: .init(address: .hostname(host, port: port), serverName: serverName),
      onServerRunning: { _ in onServerRunning() },
      logger: .init(label: "netquality.http"))
  }

  /// Each connection's handlers: the connection limits and the TLS failures' counters.
  static func http1Configuration(registry: ConnectionRegistry, security: WebSecurity)
    -> HTTP1Channel.Configuration
  {
    .init(
      additionalChannelHandlers: [
        ConnectionGuardHandler(registry: registry),
        TLSFailureCounter(counters: security.counters),
      ])
  }

  /// The same server as `application` on a socket already bound and listening (systemd's,
  /// `--web.systemd-socket`), which is served and closed but never bound here.
  static func boundSocketServer(
    descriptor: Int32, state: AgentState, registry: ConnectionRegistry,
    security: WebSecurity = WebSecurity(.none), reload: Reload? = nil,
    metricsPath: String = TelemetryPath.defaultPath,
    onServerRunning: @escaping @Sendable (any Channel) -> Void = { _ in }
  ) throws -> any Service {
    let logger = Logger(label: "netquality.http")
    let routes = router(
      state: state, registry: registry, security: security, reload: reload,
      metricsPath: metricsPath)
    let http1 = HTTP1Channel(
      responder: responder(routes, logger: logger),
      configuration: http1Configuration(registry: registry, security: security))
    guard let tls = security.tls else {
      return BoundSocketServer(
        descriptor: descriptor, child: http1, logger: logger, onServerRunning: onServerRunning)
    }
    let child = try TLSChannel(
      http1,
      configuration: TLSChannelConfiguration(
        tlsConfiguration: tls.configuration, customVerificationCallback: tls.customVerification))
    return BoundSocketServer(
      descriptor: descriptor, child: child, logger: logger, onServerRunning: onServerRunning)
  }

  /// The routes, testable without a socket (HummingbirdTesting's `.router`).
  /// What `POST /-/reload` runs (and awaits): nil while the lifecycle API is off.
  typealias Reload = @Sendable () async -> LiveConfiguration.ReloadOutcome

  static func router(
    state: AgentState, registry: ConnectionRegistry? = nil,
    security: WebSecurity = WebSecurity(.none), reload: Reload? = nil,
    metricsPath: String = TelemetryPath.defaultPath
  ) -> Router<AgentRequestContext> {
    let router = Router(context: AgentRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: WebSecurityMiddleware(security: security))
    router.add(
      middleware: MethodMiddleware(paths: paths(metricsPath: metricsPath), postPaths: ["/-/reload"])
    )
    router.get(RouterPath(metricsPath)) { request, _ in
      metrics(
        state, http: registry?.counters, security: security,
        gzip: Gzip.isAccepted(by: request.headers[.acceptEncoding]))
    }
    router.get("/-/healthy") { _, _ in text("OK\n") }
    // Prometheus' lifecycle API: the same reload as SIGHUP, refused (403, as Prometheus does)
    // unless --web.enable-lifecycle; 500 with the file's problems when it is refused; 403
    // when a browser sent it for a page of another site (`CrossSiteRequest`).
    let scheme = security.tls == nil ? "http" : "https"
    for method in [HTTPRequest.Method.post, .put] {
      router.on("/-/reload", method: method) { request, _ -> Response in
        guard let reload else {
          return text("Lifecycle API is not enabled.\n", status: .forbidden)
        }
        guard
          !CrossSiteRequest.isCrossSite(
            request.headers, authority: request.head.authority, scheme: scheme)
        else {
          return text("cross-origin request refused\n", status: .forbidden)
        }
        let outcome = await reload()
        guard outcome.succeeded else {
          return text(outcome.lines.joined(separator: "\n") + "\n", status: .internalServerError)
        }
        return text("reloaded\n")
      }
    }
    router.get("/-/ready") { _, _ -> Response in
      state.read(\.ready)
        ? text("OK\n") : text("captures not running yet\n", status: .serviceUnavailable)
    }
    router.get("/") { _, context in
      await untilClientGoes(context.channel, registry: registry) {
        await statusPage(state, metricsPath: metricsPath)
      }
    }
    router.get("/runbook") { _, _ in html(runbookPage) }
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
    router.get("/api/v1/calls") { request, _ -> Response in
      await calls(state, query: request.uri.queryParameters)
    }
    router.get("/api/v1/calls/:id") { _, context -> Response in
      call(state, id: context.parameters.get("id") ?? "")
    }
    router.get("/api/v1/history") { request, context -> Response in
      await untilClientGoes(context.channel, registry: registry) {
        await history(
          state, query: request.uri.queryParameters, client: context.clientAddress)
      }
    }
    // A one-off STAMP measurement, blackbox_exporter's way (`ProbeEndpoint`).
    router.get("/probe") { request, context -> Response in
      let timeout = scrapeTimeoutHeader.flatMap { request.headers[$0] }
      let query = request.uri.queryParameters
      return await untilClientGoes(context.channel, registry: registry) {
        await ProbeEndpoint.answer(
          query, scrapeTimeoutHeader: timeout, status: state.read(\.status),
          queue: state.oneShotProbes)
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

  /// `/metrics`: the collectors of `MetricsRegistry` rendered in their order; how long that took
  /// is the next scrape's `netquality_scrape_duration_seconds`.
  static func metrics(
    _ state: AgentState, http: ConnectionRegistry.Counters?, security: WebSecurity? = nil,
    gzip: Bool = false
  ) -> Response {
    let started = ContinuousClock.now
    var body = PrometheusExposition.render(
      MetricsRegistry.collectors(state, http: http, security: security))
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
