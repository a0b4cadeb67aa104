import HTTPTypes
import Hummingbird

/// The web configuration applied to every request, whatever its path (as exporter-toolkit's
/// handler wraps a whole exporter, `/-/healthy` and `/-/ready` included): basic authentication
/// while users are configured (`401` with `WWW-Authenticate`; `429` with `Retry-After` for new
/// credentials while the bcrypt queue is full) and the rate limit (`429`; see
/// `RateLimitBuckets`), then the route; the configured headers go on every answer, errors
/// included.
struct WebSecurityMiddleware: RouterMiddleware {
  typealias Context = AgentRequestContext
  let security: WebSecurity

  /// RFC 7617 section 2: the realm names what the credentials are for; UTF-8 user names and
  /// passwords are expected (section 2.1).
  static var challenge: String { #"Basic realm="netquality", charset="UTF-8""# }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let policy = security.current
    var response: Response
    switch await security.verify(
      authorization: request.headers[.authorization], users: policy.users,
      client: context.clientAddress)
    {
    case .rateLimited:
      security.counters.rateLimited.add(1, ordering: .relaxed)
      response = HTTPServer.text("too many requests\n", status: .tooManyRequests)
    case .busy:
      response = HTTPServer.text("too many new credentials at once\n", status: .tooManyRequests)
      response.headers[.retryAfter] = "1"
    case .missing, .invalid:
      response = HTTPServer.text("unauthorized\n", status: .unauthorized)
      response.headers[.wwwAuthenticate] = Self.challenge
    case .accepted:
      do {
        response = try await next(request, context)
      } catch let error as HTTPResponseError {
        response = try error.response(from: request, context: context)
      }
    }
    for (name, value) in policy.headers { response.headers[name] = value }
    return response
  }
}
