import Hummingbird
import NIOCore

/// A request's context: Hummingbird's own storage and the connection the request came on, so
/// that the work of a request whose client has gone (a history read) can be dropped
/// (`ConnectionRegistry.whenClientGone`).
struct AgentRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }

  /// The client's IP address (the TCP peer's), for the per-client fairness and rate limits.
  var clientAddress: String? { channel.remoteAddress?.ipAddress }
}
