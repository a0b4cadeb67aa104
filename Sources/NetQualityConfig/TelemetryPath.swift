/// Where the metrics are served: `--web.telemetry-path` and `telemetry_path`, default
/// `/metrics`, as node_exporter's and every exporter-toolkit exporter's flag of that name. The
/// other routes of the HTTP server are listed here too, so that the path is checked against
/// them where the configuration is loaded (`check-config` reports it with its line).
public enum TelemetryPath {
  public static let defaultPath = "/metrics"

  /// The HTTP server's routes other than the metrics, each for GET and HEAD.
  public static let otherRoutes: Set<String> = [
    "/-/healthy", "/-/ready", "/", "/api/v1/peers", "/api/v1/streams", "/api/v1/alerts",
    "/api/v1/status", "/api/v1/history", "/probe", "/api/v1/calls", "/runbook",
  ]

  /// Prefixes whose paths are the server's, now or later (`/api/v1/calls/:id`, `/-/reload`).
  public static let reservedPrefixes = ["/api/", "/-/"]

  /// What a segment of the path may hold: RFC 3986's unreserved characters (section 2.3), so
  /// the path is the same escaped or not, and the router takes no segment for a parameter
  /// (`:id`) or a wildcard (`*`).
  static func isAllowed(_ character: Character) -> Bool {
    character.isASCII && (character.isLetter || character.isNumber || "-._~".contains(character))
  }

  /// What is wrong with `path` as the metrics' path, in words; nil when it can be one.
  public static func problem(_ path: String) -> String? {
    guard path.hasPrefix("/") else { return "'\(path)' must start with '/' (e.g. /metrics)" }
    guard path != "/" else { return "'/' is the status page; choose another path" }
    let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    guard segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
      return "'\(path)' has an empty, '.' or '..' segment (e.g. /metrics, /netquality/metrics)"
    }
    guard segments.allSatisfy({ $0.allSatisfy(isAllowed) }) else {
      return "'\(path)' may hold only letters, digits, '-', '.', '_', '~' and '/'"
    }
    if otherRoutes.contains(path) || path == "/-/reload" {
      return "'\(path)' is another route of the server; choose another path"
    }
    if let prefix = reservedPrefixes.first(where: { (path + "/").hasPrefix($0) }) {
      return "'\(path)' is under \(prefix), the server's own routes; choose another path"
    }
    return nil
  }
}
