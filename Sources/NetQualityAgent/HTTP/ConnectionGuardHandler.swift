import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One per HTTP connection, after the HTTP decoder: admits the connection to the
/// `ConnectionRegistry`, closes it if a request does not arrive in time, if its client sends
/// more requests ahead of the answers than `HTTPLimits.maxPipelinedRequests`, or if it leaves
/// its answers unread (the connection unwritable) for the request timeout, caps the kernel's
/// send buffer, and closes it once a response that says `Connection: close` is written. A
/// client that never reads thus costs kilobytes, not megabytes (issue 31).
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
  /// Armed while the connection is unwritable (its client does not read).
  private var stallTimer: Scheduled<Void>?
  private var closeAfterResponse = false
  /// Requests read and not yet answered.
  private var pending = 0
  /// Closing for pipelining: what the decoder still hands over is dropped.
  private var refusing = false

  init(registry: ConnectionRegistry) {
    self.registry = registry
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { admit(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
    stallTimer?.cancel()
  }

  func channelActive(context: ChannelHandlerContext) {
    admit(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    stallTimer?.cancel()
    registry.remove(context.channel)
    context.fireChannelInactive()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? ChannelEvent, event == .inputClosed {
      registry.clientGone(context.channel)
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      stallTimer?.cancel()
      stallTimer = nil
    } else if stallTimer == nil {
      let channel = context.channel
      let registry = registry
      stallTimer = context.eventLoop.scheduleTask(
        in: .nanoseconds(Int64(registry.limits.requestTimeoutSeconds * 1e9))
      ) {
        registry.countNotReading()
        channel.close(promise: nil)
      }
    }
    context.fireChannelWritabilityChanged()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !refusing else { return }
    switch unwrapInboundIn(data) {
    case .head:
      pending += 1
      if pending > registry.limits.maxPipelinedRequests {
        // Dropped, not buffered: the decoder parses a whole read at once, and every request
        // passed on is held until answered.
        refusing = true
        registry.countPipelining()
        context.close(promise: nil)
        return
      }
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
      pending = max(0, pending - 1)
      // Keep-alive: the next request has its own time from now (unless it is already here).
      if pending == 0 {
        registry.setWaiting(context.channel, true)
        arm(context)
      }
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
    // Not every channel is a socket (tests use embedded ones): no buffer to cap there.
    try? context.channel.syncOptions?.setOption(
      .socketOption(.so_sndbuf), value: SocketOptionValue(registry.limits.sendBufferBytes))
    // What NIO queues above the kernel's buffer before it stops the response writer: its
    // default (32 to 64 KiB) is as much again per client that does not read.
    try? context.channel.syncOptions?.setOption(
      .writeBufferWaterMark, value: .init(low: 8 * 1024, high: 16 * 1024))
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
