import Foundation
import Hummingbird
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import Synchronization

/// `GET /probe?target=ADDR[:PORT]`: a one-off STAMP measurement answered as Prometheus
/// exposition, as blackbox_exporter's `/probe` answers (docs/probes.md has the scrape
/// configuration). A few probes are sent at request time from a socket of their own (a session
/// apart from the agent's own probes of the same reflector), on a thread of the probe queue, and
/// the answer says what came back.
///
/// Bounded every way, since anyone allowed to ask makes the agent send: `count` 1 to 100,
/// `interval` 1 ms to 1 s, `timeout` 0.1 to 5 s, the whole measurement within the scrape's own
/// timeout (Prometheus' `X-Prometheus-Scrape-Timeout-Seconds`, 10 s at most); two at a time and
/// four waiting (beyond: 429), five requests a second with bursts of ten (beyond: 429); behind
/// the web configuration's TLS and basic auth like every other path. Only to the configured
/// probe targets and `probe_endpoint.allow`, never the agent's own sockets (403, nothing
/// sent: `refusal`).
enum ProbeEndpoint {
  /// What a request asks for.
  struct Request: Sendable, Equatable {
    var target: Endpoint
    var count = 10
    var intervalSeconds = 0.02
    var timeoutSeconds = 1.0

    /// The longest the measurement can take: the last probe's send, and its deadline.
    var longestSeconds: Double { Double(count - 1) * intervalSeconds + timeoutSeconds }
  }

  static let parameters = ["target", "count", "interval", "timeout"]
  static let countRange = 1...100
  static let intervalRangeSeconds: ClosedRange<Double> = 0.001...1
  static let timeoutRangeSeconds: ClosedRange<Double> = 0.1...5
  /// The most a measurement may take, whatever the scraper says it waits.
  static let longestSeconds = 10.0
  /// Kept back from the scraper's timeout for the answer to travel (blackbox_exporter keeps
  /// 0.5 s, its `--timeout-offset`).
  static let timeoutOffsetSeconds = 0.5
  /// STAMP's port (RFC 8762 section 4.1) when the target names none.
  static let defaultPort: UInt16 = 862

  /// The request in `query`, or a sentence saying what is wrong (400).
  static func request(_ query: Parameters, scrapeTimeoutSeconds: Double?) throws(QueryParameters
    .Failure) -> Request
  {
    try QueryParameters.check(query, path: "/probe", takes: parameters)
    guard let text = try QueryParameters.single("target", query), !text.isEmpty else {
      throw .init(description: "target: required, ADDRESS[:PORT] of a STAMP reflector")
    }
    let endpoint =
      Endpoint(parsing: text)
      ?? IPAddress(
        text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
      )
      .map { Endpoint(address: $0, port: defaultPort) }
    guard let endpoint else {
      throw .init(
        description:
          "target \(text): expected ADDRESS or ADDRESS:PORT with an IP address (192.0.2.10, "
          + "192.0.2.10:862, [2001:db8::10]:862); host names are not resolved")
    }
    guard endpoint.port != 0,
      endpoint.address != IPAddress(ipv4: 0, 0, 0, 0),
      endpoint.address != IPAddress(high: 0, low: 0)
    else {
      throw .init(description: "target \(text): a reflector's address and port, not 0")
    }
    var request = Request(target: endpoint)
    if let text = try QueryParameters.single("count", query) {
      guard let count = Int(text), countRange.contains(count) else {
        throw .init(description: "count \(text): a whole number from 1 to 100")
      }
      request.count = count
    }
    if let text = try QueryParameters.single("interval", query) {
      guard let seconds = GoDuration.seconds(text), intervalRangeSeconds.contains(seconds) else {
        throw .init(description: "interval \(text): a duration from 1ms to 1s (20ms, 0.1s)")
      }
      request.intervalSeconds = seconds
    }
    if let text = try QueryParameters.single("timeout", query) {
      guard let seconds = GoDuration.seconds(text), timeoutRangeSeconds.contains(seconds) else {
        throw .init(description: "timeout \(text): a duration from 100ms to 5s (1s, 500ms)")
      }
      request.timeoutSeconds = seconds
    }
    let limit = min(
      longestSeconds, (scrapeTimeoutSeconds ?? longestSeconds) - timeoutOffsetSeconds)
    guard request.longestSeconds <= limit else {
      throw .init(
        description:
          "count × interval + timeout is \(DecimalText.fixed(request.longestSeconds, places: 2)) s, "
          + "more than the \(DecimalText.fixed(limit, places: 2)) s this scrape allows: send fewer "
          + "probes, closer together, or raise scrape_timeout")
    }
    return request
  }

  /// Why `GET /probe` may not send to `target` (403), nil when it may: only to a configured
  /// probe target or what `probe_endpoint.allow` lists, and never to the agent's own sockets
  /// (issue 39: any address and port was accepted, the agent's HTTP port and reflector too).
  /// `localNetworks`' host prefixes (/32, /128: the interfaces' addresses) are this host's.
  static func refusal(
    of target: Endpoint, configuration: AgentConfiguration, localNetworks: [NetworkPrefix]
  ) -> String? {
    let loopback = ["127.0.0.0/8", "::1/128"].compactMap(NetworkPrefix.init)
    func isOwn(_ listen: Endpoint) -> Bool {
      guard target.port == listen.port else { return false }
      if target.address == listen.address { return true }
      let anyAddress =
        listen.address == IPAddress(ipv4: 0, 0, 0, 0)
        || listen.address == IPAddress(high: 0, low: 0)
      guard anyAddress else { return false }
      return loopback.contains { $0.contains(target.address) }
        || localNetworks.contains { $0.lengthBits128 == 128 && $0.contains(target.address) }
    }
    for listen in configuration.listenAddresses {
      if let host = IPAddress(listen.host.isEmpty ? "0.0.0.0" : listen.host),
        let port = UInt16(exactly: listen.port), isOwn(Endpoint(address: host, port: port))
      {
        return "target \(target): the agent's own HTTP port"
      }
    }
    if configuration.reflector.enabled, isOwn(configuration.reflector.listen) {
      return "target \(target): the agent's own reflector"
    }
    guard
      configuration.probes.contains(where: { $0.target == target })
        || configuration.probeEndpoint.allow.contains(where: { $0.admits(target) })
    else {
      return "target \(target): neither a configured probe target nor in probe_endpoint.allow"
    }
    return nil
  }

  /// Requests admitted: five a second, bursts of ten, for the whole agent.
  static let rateLimit = Mutex(
    TokenBucket(ratePerSecond: 5, burst: 10, now: WallClock.monotonicNow()))

  /// The answer to `GET /probe`.
  static func answer(
    _ query: Parameters, scrapeTimeoutHeader: String?, status: AgentStatus,
    queue: BoundedWorkQueue
  ) async -> Response {
    let request: Request
    do {
      request = try Self.request(
        query, scrapeTimeoutSeconds: scrapeTimeoutHeader.flatMap(Double.init))
    } catch {
      // The query's own text, control bytes shown as \xNN: an answer read with curl must not
      // drive the reader's terminal (issue 39).
      return HTTPServer.text(
        TerminalText.sanitized(error.description) + "\n", status: .badRequest)
    }
    if let reason = refusal(
      of: request.target, configuration: status.configuration,
      localNetworks: status.localNetworks)
    {
      return HTTPServer.text(reason + "\n", status: .forbidden)
    }
    guard rateLimit.withLock({ $0.take(at: WallClock.monotonicNow()) }) else {
      return tooMany("more than 5 probe requests a second")
    }
    do {
      let result = try await queue.run { interruption in try measure(request, interruption) }
      return Response(
        status: .ok, headers: [.contentType: PrometheusExposition.contentType],
        body: .init(byteBuffer: ByteBuffer(string: PrometheusExposition.render([result]))))
    } catch {
      switch error {
      case .busy: return tooMany("2 probes running and 4 waiting")
      case .timedOut: return HTTPServer.text("the probe ran too long\n", status: .gatewayTimeout)
      case .cancelled: return HTTPServer.text("cancelled\n", status: .serviceUnavailable)
      case .failed(let reason): return HTTPServer.text(reason + "\n", status: .internalServerError)
      }
    }
  }

  private static func tooMany(_ reason: String) -> Response {
    var response = HTTPServer.text(
      "too many probe requests (\(reason)); retry shortly\n", status: .tooManyRequests)
    response.headers[.retryAfter] = "1"
    return response
  }

  /// Sends the request's probes and waits for their answers or deadlines (blocking: on a
  /// thread of the queue); stops early when interrupted (the client went away).
  static func measure(_ request: Request, _ interruption: WorkInterruption) throws(WorkFailure)
    -> OneShotProbeCollector
  {
    var options = STAMPSender.Options(target: request.target)
    options.ratePerSecond = 1 / request.intervalSeconds
    options.timeoutSeconds = request.timeoutSeconds
    let sender: STAMPSender
    do {
      sender = try STAMPSender(options: options)
    } catch {
      throw .failed("probe \(request.target): \(error.description)")
    }
    let stopped = Atomic<Bool>(false)
    interruption.onInterrupt { stopped.store(true, ordering: .relaxed) }
    let started = WallClock.monotonicNow()
    var tracker = ProbeTracker(target: request.target, firstSentAt: WallClock.now())
    var roundTrips: [Double] = []
    roundTrips.reserveCapacity(request.count)
    func record(_ sample: ProbeSample) {
      tracker.record(sample)
      if case .replied(let reply) = sample.outcome {
        let turnaround = reply.reflectorSentAt.seconds(since: reply.reflectorReceivedAt)
        let roundTrip = reply.receivedAt.seconds(since: sample.sentAt) - turnaround
        if turnaround >= 0 && roundTrip >= 0 { roundTrips.append(roundTrip) }
      }
    }
    do {
      while !stopped.load(ordering: .relaxed) {
        let sending = sender.session.sentCount < request.count
        if sending { sender.sendIfDue(monotonicNow: WallClock.monotonicNow()) }
        try sender.receiveAnswers { record($0) }
        sender.settle(now: WallClock.now()) { record($0) }
        if !sending && sender.session.inFlight == 0 { break }
        _ = try sender.socket.waitUntilReadable(
          timeoutMilliseconds: sender.millisecondsUntilDue(sending: sending, limit: 100))
      }
    } catch {
      throw .failed("probe \(request.target): \(error.description)")
    }
    if let reason = interruption.reason { throw reason }
    let total = tracker.total
    return OneShotProbeCollector(
      target: request.target.description,
      durationSeconds: WallClock.monotonicNow().seconds(since: started), sent: total.sent,
      received: total.received, lostForward: total.forwardLost, lostBackward: total.backwardLost,
      lostUnknown: tracker.pendingLost, roundTripsSeconds: roundTrips)
  }
}
