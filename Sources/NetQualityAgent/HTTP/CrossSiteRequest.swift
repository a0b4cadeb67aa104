import HTTPTypes

/// Whether a request was sent by a page of another site: a browser adds `Origin` to every
/// POST (Fetch standard, "append a request `Origin` header") and `Sec-Fetch-Site` to every
/// request (W3C Fetch Metadata Request Headers, section 2.1). A command-line client (curl,
/// Prometheus, netquality's own) sends neither and is never refused here.
///
/// Issue 39: with `--web.enable-lifecycle` and no authentication, any web page the operator
/// opened could make the browser `POST /-/reload` (a form needs no CORS preflight). The
/// lifecycle routes refuse such a request with 403, as Go's `net/http.CrossOriginProtection`
/// does since Go 1.25.
enum CrossSiteRequest {
  static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")
  /// HTTP/1.1's `Host` as a field, where a request was made without an authority.
  static let hostField = HTTPField.Name("Host")

  /// True when `Sec-Fetch-Site` says anything but same-origin or a user's own navigation
  /// ("none"), or, without it, when `Origin` names another scheme, host or port than `Host`
  /// (an opaque origin, "null", included). `authority` is the request's (HTTP/1.1's `Host`).
  static func isCrossSite(_ headers: HTTPFields, authority: String?, scheme: String) -> Bool {
    if let name = secFetchSite, let site = headers[name]?.lowercased() {
      return site != "same-origin" && site != "none"
    }
    guard let origin = headers[.origin]?.lowercased() else { return false }
    let host = hostField.flatMap { headers[$0] } ?? authority
    guard let host = host?.lowercased() else { return true }
    return normalized(origin: origin) != normalized(scheme: scheme, authority: host)
  }

  /// `scheme://authority` without the scheme's default port (RFC 6454 section 6.1).
  static func normalized(scheme: String, authority: String) -> String {
    let defaultPort = scheme == "https" ? ":443" : ":80"
    let bare =
      authority.hasSuffix(defaultPort) ? String(authority.dropLast(defaultPort.count)) : authority
    return "\(scheme)://\(bare)"
  }

  private static func normalized(origin: String) -> String {
    guard let separator = origin.range(of: "://") else { return origin }
    return normalized(
      scheme: String(origin[..<separator.lowerBound]),
      authority: String(origin[separator.upperBound...]))
  }
}
