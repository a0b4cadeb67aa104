import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One per HTTP connection, after the HTTP decoder: admits the connection to the
/// `ConnectionRegistry`, closes it if a request does not arrive in time, and closes it once a
/// response that says `Connection: close` is written.
///
/// The last is needed because Hummingbird, after answering a request it could not parse (a
/// 1 MB URL or header) with `400` and `Connection: close`, half-closes and waits for the
/// client to close; a client that never does kept the descriptor forever (50 such requests
/// leaked 50 descriptors). Here the server closes its side in full once the answer is out.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let registry: ConnectionRegistry
  private var admitted = false
  private var timer: Scheduled<Void>?
  private var closeAfterResponse = false

  init(registry: ConnectionRegistry) {
    self.registry = registry
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { admit(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
  }

  func channelActive(context: ChannelHandlerContext) {
    admit(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    registry.remove(context.channel)
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      registry.setWaiting(context.channel, false)
    case .end:
      disarm()
    case .body:
      break
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(let head):
      if head.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
    case .end where closeAfterResponse:
      let written = promise ?? context.eventLoop.makePromise()
      let channel = context.channel
      written.futureResult.whenComplete { _ in channel.close(promise: nil) }
      context.writeAndFlush(data, promise: written)
      return
    case .end:
      // Keep-alive: the next request has its own time from now.
      registry.setWaiting(context.channel, true)
      arm(context)
    case .body:
      break
    }
    context.write(data, promise: promise)
  }

  private func admit(_ context: ChannelHandlerContext) {
    guard !admitted else { return }
    admitted = true
    guard registry.admit(context.channel) else {
      context.close(promise: nil)
      return
    }
    arm(context)
  }

  private func arm(_ context: ChannelHandlerContext) {
    disarm()
    let channel = context.channel
    let registry = registry
    timer = context.eventLoop.scheduleTask(
      in: .nanoseconds(Int64(registry.limits.requestTimeoutSeconds * 1e9))
    ) {
      registry.countTimeout()
      channel.close(promise: nil)
    }
  }

  private func disarm() {
    timer?.cancel()
    timer = nil
  }
}
