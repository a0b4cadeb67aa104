import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// An https server on loopback (NIOSSL on NIO's HTTP/1.1 server pipeline) that answers every
/// request with one status and keeps the Authorization header of each: Alertmanager behind
/// TLS, as far as the agent can tell.
final class TLSTestServer: Sendable {
  private final class Received: Sendable {
    let headers = Mutex<[String?]>([])
  }

  private let channel: any Channel
  private let received = Received()
  let port: Int

  /// Listens on 127.0.0.1 with `certificate` and `key`; `clientCA` set: a client certificate
  /// signed by it is required.
  init(certificate: String, key: String, clientCA: String? = nil, status: Int = 200) throws {
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
      privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
    if let clientCA {
      configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(clientCA))
      configuration.certificateVerification = .noHostnameVerification
    }
    let context = try NIOSSLContext(configuration: configuration)
    let received = self.received
    channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          try channel.pipeline.syncOperations.addHandler(
            Responder(status: status, received: received))
        }
      }
      .bind(host: "127.0.0.1", port: 0).wait()
    port = channel.localAddress?.port ?? 0
  }

  /// The Authorization header of each request (nil: none), in order.
  var authorizations: [String?] { received.headers.withLock { $0 } }

  func close() throws { try channel.close().wait() }

  private final class Responder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let status: Int
    let received: Received

    init(status: Int, received: Received) {
      self.status = status
      self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        received.headers.withLock { $0.append(head.headers.first(name: "Authorization")) }
      case .body:
        break
      case .end:
        var head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: status))
        head.headers.add(name: "Content-Length", value: "0")
        head.headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
          context.close(promise: nil)
        }
      }
    }
  }
}
