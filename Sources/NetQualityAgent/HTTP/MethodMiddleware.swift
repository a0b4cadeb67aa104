import HTTPTypes
import Hummingbird

/// Answers for the methods the routes do not take, as HTTP says (RFC 9110 §9.3.7, §15.5.6):
/// OPTIONS on a known path is `204` with `Allow`, another method there is `405` with `Allow`.
/// HEAD is served by the router itself (`.autoGenerateHeadEndpoints`).
struct MethodMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The paths the agent serves with GET (and HEAD).
  let paths: Set<String>
  /// The paths that take POST or PUT (`/-/reload`, as Prometheus' lifecycle API).
  var postPaths: Set<String> = []
  static var allowed: String { "GET, HEAD, OPTIONS" }
  static var allowedForPost: String { "POST, PUT, OPTIONS" }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let path = request.uri.path
    let post = postPaths.contains(path)
    guard post || paths.contains(path) else { return try await next(request, context) }
    let allowed = post ? Self.allowedForPost : Self.allowed
    switch request.method {
    case .get where !post, .head where !post, .post where post, .put where post:
      return try await next(request, context)
    case .options:
      return Response(status: .noContent, headers: [.allow: allowed])
    default:
      return Response(
        status: .methodNotAllowed,
        headers: [.allow: allowed, .contentType: "text/plain; charset=utf-8"],
        body: .init(
          byteBuffer: ByteBuffer(string: "\(request.method.rawValue) is not allowed here\n")))
    }
  }
}
