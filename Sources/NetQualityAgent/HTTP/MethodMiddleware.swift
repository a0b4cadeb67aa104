import HTTPTypes
import Hummingbird

/// Answers for the methods the routes do not take, as HTTP says (RFC 9110 §9.3.7, §15.5.6):
/// OPTIONS on a known path is `204` with `Allow`, another method there is `405` with `Allow`.
/// HEAD is served by the router itself (`.autoGenerateHeadEndpoints`).
struct MethodMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The paths the agent serves, all GET (and HEAD).
  let paths: Set<String>
  static var allowed: String { "GET, HEAD, OPTIONS" }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard paths.contains(request.uri.path) else { return try await next(request, context) }
    switch request.method {
    case .get, .head:
      return try await next(request, context)
    case .options:
      return Response(status: .noContent, headers: [.allow: Self.allowed])
    default:
      return Response(
        status: .methodNotAllowed,
        headers: [.allow: Self.allowed, .contentType: "text/plain; charset=utf-8"],
        body: .init(
          byteBuffer: ByteBuffer(string: "\(request.method.rawValue) is not allowed here\n")))
    }
  }
}
