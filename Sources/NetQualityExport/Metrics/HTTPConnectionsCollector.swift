/// The HTTP server's connections: open now, and closed to make room, refused, timed out, for
/// pipelining too deep, or because the client stopped reading its answers.
public struct HTTPConnectionsCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [.httpConnections, .httpConnectionsClosedTotal]

  public var open: Int
  public var evicted: Int64
  public var refused: Int64
  public var timedOut: Int64
  public var pipelining: Int64
  public var notReading: Int64

  public init(
    open: Int, evicted: Int64, refused: Int64, timedOut: Int64, pipelining: Int64 = 0,
    notReading: Int64 = 0
  ) {
    self.open = open
    self.evicted = evicted
    self.refused = refused
    self.timedOut = timedOut
    self.pipelining = pipelining
    self.notReading = notReading
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.httpConnections)
    out.sample(.httpConnections, [], Double(open))
    out.family(.httpConnectionsClosedTotal)
    for (reason, count) in [
      ("evicted", evicted), ("refused", refused), ("timeout", timedOut),
      ("pipelining", pipelining), ("not_reading", notReading),
    ] {
      out.sample(.httpConnectionsClosedTotal, [("reason", reason)], Double(count))
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let httpConnections = gauge(
    "netquality_http_connections", "HTTP connections open now.")
  public static let httpConnectionsClosedTotal = counter(
    "netquality_http_connections_closed_total", labels: ["reason"],
    "HTTP connections the server closed, by reason: evicted (the longest waiting, to make "
      + "room at the cap), refused (every slot busy), timeout (no request in time), pipelining "
      + "(more requests sent ahead than the server answers at once), not_reading (answers "
      + "unread for the request timeout).")
}

extension HTTPConnectionsCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    HTTPConnectionsCollector(open: 2, evicted: 0, refused: 0, timedOut: 1)
  }
}
