import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The HTTP server on a socket bound by another process (systemd's, `SystemdSockets`), which
/// Hummingbird's `Server` cannot take: it binds a host and port of its own. The same child
/// channel (HTTP/1 with the agent's connection limits, TLS when configured) and router as
/// every listener, on NIO's `ServerBootstrap.withBoundSocket(_:)`; on shutdown it stops
/// accepting and asks each connection to quiesce, as Hummingbird's server does.
final class BoundSocketServer<Child: ServerChildChannel>: Service {
  let descriptor: Int32
  let child: Child
  let logger: Logger
  let onServerRunning: @Sendable (any Channel) -> Void

  init(
    descriptor: Int32, child: Child, logger: Logger,
    onServerRunning: @escaping @Sendable (any Channel) -> Void
  ) {
    self.descriptor = descriptor
    self.child = child
    self.logger = logger
    self.onServerRunning = onServerRunning
  }

  /// The open connections, to be told to quiesce.
  final class Connections: Sendable {
    let channels = Mutex<[ObjectIdentifier: any Channel]>([:])
  }

  func run() async throws {
    let (accepted, arrivals) = AsyncStream.makeStream(of: Child.Value.self)
    let connections = Connections()
    let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
      .childChannelInitializer { [child, logger] channel in
        let key = ObjectIdentifier(channel)
        connections.channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { _ in
          _ = connections.channels.withLock { $0.removeValue(forKey: key) }
        }
        return child.setup(channel: channel, logger: logger).map { arrivals.yield($0) }
      }
    let server = try await bootstrap.withBoundSocket(descriptor).get()
    onServerRunning(server)
    await withTaskCancellationOrGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        for await value in accepted {
          group.addTask { [child, logger] in await child.handle(value: value, logger: logger) }
        }
      }
    } onCancelOrGracefulShutdown: {
      server.close(promise: nil)
      arrivals.finish()
      for channel in connections.channels.withLock({ Array($0.values) }) {
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
      }
    }
  }
}

extension HTTPServer {
  /// What Hummingbird's `Application` does with each request, for a server it does not run
  /// (`BoundSocketServer`): the router's answer (500 for anything it throws), with the
  /// `Server` header every listener sends.
  static func responder(
    _ router: Router<AgentRequestContext>, logger: Logger
  ) -> HTTPChannelHandler.Responder {
    let responder = router.buildResponder()
    return { request, writer, channel in
      let context = AgentRequestContext(source: .init(channel: channel, logger: logger))
      var response: Response
      do {
        response = try await responder.respond(to: request, context: context)
      } catch let error as HTTPParserError {
        throw error
      } catch {
        response = Response(status: .internalServerError)
      }
      response.headers[.server] = serverName
      try await writer.write(response: response.head, body: response.body)
    }
  }
}
