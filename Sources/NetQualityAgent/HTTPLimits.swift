import Foundation

/// What one HTTP client may hold of the agent: a monitoring endpoint must keep answering its
/// scraper whatever else connects, and must never run the process out of descriptors (which
/// would also blind the capture and the link watcher).
public struct HTTPLimits: Sendable, Equatable {
  /// Open connections at most. Prometheus' own `--web.max-connections` default is 512; never
  /// more than half the descriptor limit (`ulimit -n`, 1,024 under many systemd units), so the
  /// captures, the dashboard and sysfs always find a descriptor.
  public var maxConnections: Int
  /// A request (head and body) must be complete within this long of the connection opening or
  /// of the previous response, or the connection is closed: it bounds a slow client (Go's
  /// `ReadHeaderTimeout`, nginx's `client_header_timeout` of 60 s) and an idle keep-alive
  /// connection alike (Go's HTTP clients, Prometheus' among them, keep idle connections 90 s
  /// and retry a request on one the server closed).
  public var requestTimeoutSeconds: Double

  public init(maxConnections: Int, requestTimeoutSeconds: Double) {
    self.maxConnections = maxConnections
    self.requestTimeoutSeconds = requestTimeoutSeconds
  }

  /// The defaults for this process: 512 connections, or half the descriptor limit if lower;
  /// 60 s per request.
  public static var defaults: HTTPLimits {
    var limit = rlimit()
    let descriptors =
      getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
      ? Int(clamping: limit.rlim_cur) : 1024
    return HTTPLimits(maxConnections: max(16, min(512, descriptors / 2)), requestTimeoutSeconds: 60)
  }
}
