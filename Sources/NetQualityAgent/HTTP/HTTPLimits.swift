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
  /// Requests a client may send ahead of the answers (HTTP/1.1 pipelining, RFC 9112 section
  /// 9.3.2); a connection with more is closed (section 9.6 lets a server close at any time).
  /// Every request read is parsed and held until answered, so 300 pipelined requests on each of
  /// 500 connections held 1.7 MB per connection (issue 31). No client in use pipelines deeply:
  /// browsers and Go's client (Prometheus) do not pipeline at all.
  public var maxPipelinedRequests: Int
  /// The kernel's send buffer of a connection (SO_SNDBUF; Linux doubles it for its
  /// bookkeeping): with autotuning a client that never reads kept up to 4 MiB of kernel memory
  /// per connection. 128 KiB still moves a scrape at over 100 MB/s on a LAN and 1.3 MB/s over a
  /// 100 ms round trip (gzip makes the exposition about a tenth of that).
  public var sendBufferBytes: Int

  public init(
    maxConnections: Int, requestTimeoutSeconds: Double, maxPipelinedRequests: Int = 8,
    sendBufferBytes: Int = 128 * 1024
  ) {
    self.maxConnections = maxConnections
    self.requestTimeoutSeconds = requestTimeoutSeconds
    self.maxPipelinedRequests = maxPipelinedRequests
    self.sendBufferBytes = sendBufferBytes
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
