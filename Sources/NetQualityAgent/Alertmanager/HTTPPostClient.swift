import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A minimal HTTP/1.1 client on SwiftNIO for one job: POST a JSON body, read the status, close
/// (one connection per request: a batch every few seconds at most). The whole exchange —
/// resolving, connecting, the TLS handshake, writing, reading — has one deadline.
struct HTTPPostClient: Sendable {
  /// TLS for an https URL: the context, and the name sent (SNI) and checked in the
  /// certificate (nil for an IP address, which NIOSSL checks against the address connected to).
  struct TLS: Sendable {
    var context: NIOSSLContext
    var serverName: String?
  }

  /// What the server answered: its status and the start of its body (for error messages).
  struct Response: Sendable, Equatable {
    var status: Int
    var body: String
  }

  enum Failure: Error, Equatable, CustomStringConvertible {
    /// Resolving or connecting failed.
    case cannotConnect(String)
    /// No complete answer within the deadline.
    case timedOut(seconds: Double)
    /// The server closed the connection before a complete answer.
    case closedEarly
    /// The TLS handshake failed (a certificate refused, no common version).
    case tls(String)
    /// Anything else on the connection (a malformed response, a reset).
    case connection(String)

    var description: String {
      switch self {
      case .cannotConnect(let reason): "cannot connect: \(reason)"
      case .timedOut(let seconds): "no answer within \(Self.seconds(seconds)) s"
      case .closedEarly: "connection closed before a complete answer"
      case .tls(let reason): reason
      case .connection(let reason): "connection failed: \(reason)"
      }
    }

    private static func seconds(_ value: Double) -> String {
      value == value.rounded() ? String(Int(value)) : String(value)
    }
  }

  /// Bytes of a response body kept for error messages.
  static let bodyLimitBytes = 2048

  var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  var userAgent = "netquality"

  /// Posts `body` to `path` on `host:port`; `authority` is the Host header, `authorization`
  /// the Authorization header (a secret: never in an error).
  func post(
    host: String, port: Int, authority: String, path: String, body: String,
    timeoutSeconds: Double, tls: TLS? = nil, authorization: String? = nil
  ) -> EventLoopFuture<Response> {
    let eventLoop = group.next()
    let promise = eventLoop.makePromise(of: Response.self)
    let timeout = TimeAmount.nanoseconds(Int64(timeoutSeconds * 1e9))
    let deadline = eventLoop.scheduleTask(in: timeout) {
      promise.fail(Failure.timedOut(seconds: timeoutSeconds))
    }
    promise.futureResult.whenComplete { _ in deadline.cancel() }
    var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
    head.headers.add(name: "Host", value: authority)
    head.headers.add(name: "User-Agent", value: userAgent)
    head.headers.add(name: "Content-Type", value: "application/json")
    head.headers.add(name: "Content-Length", value: String(body.utf8.count))
    head.headers.add(name: "Connection", value: "close")
    if let authorization { head.headers.add(name: "Authorization", value: authorization) }
    let request = head
    ClientBootstrap(group: eventLoop)
      .connectTimeout(timeout)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          if let tls {
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverName))
          }
          try channel.pipeline.syncOperations.addHTTPClientHandlers()
          try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
        }
      }
      .connect(host: host, port: port)
      .whenComplete { result in
        switch result {
        case .failure(let error):
          promise.fail(Failure.cannotConnect(Self.reason(error)))
        case .success(let channel):
          promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
          channel.write(HTTPClientRequestPart.head(request), promise: nil)
          channel.write(
            HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
          channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
            promise.fail(Self.failure(error))
          }
        }
      }
    return promise.futureResult
  }

  /// An error as one short line (NIO's descriptions carry the address and errno text).
  static func reason(_ error: any Error) -> String {
    if let failure = error as? Failure { return failure.description }
    if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
    if let connect = error as? NIOConnectionError {
      let attempts = connect.connectionErrors.map { attempt in
        let address = attempt.target
        let host = address.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "\(address)"
        return "\(host):\(address.port ?? connect.port): \(reason(attempt.error))"
      }
      if let dns = connect.dnsAAAAError ?? connect.dnsAError, attempts.isEmpty {
        return "cannot resolve \(connect.host): \(dns)"
      }
      return attempts.isEmpty ? "no address for \(connect.host)" : attempts.joined(separator: "; ")
    }
    if error is ChannelError, case ChannelError.connectTimeout = error {
      return "connect timed out"
    }
    if let tls = tlsReason(error) { return tls }
    return "\(error)"
  }

  /// A failure on an open connection: the TLS handshake's, or any other.
  static func failure(_ error: any Error) -> Failure {
    if let failure = error as? Failure { return failure }
    if let tls = tlsReason(error) { return .tls(tls) }
    return .connection(reason(error))
  }

  /// A TLS failure as one line: "certificate verify failed: ..." for a certificate refused
  /// or a name it does not hold. BoringSSL's own text names a source file and line of the
  /// build; only its reason is kept.
  static func tlsReason(_ error: any Error) -> String? {
    if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
      // "NIOSSLExtraError.failedToValidateHostname: Couldn't find NAME in certificate from peer"
      let text = "\(extra)"
      let detail = text.firstRange(of: ": ").map { String(text[$0.upperBound...]) } ?? text
      return "certificate verify failed: \(detail) (nor the address connected to)"
    }
    guard let ssl = error as? NIOSSLError else { return nil }
    guard case .handshakeFailed(let boring) = ssl else { return "TLS: \(ssl)" }
    let text = "\(boring)"
    if text.contains("CERTIFICATE_VERIFY_FAILED") {
      return "certificate verify failed: its chain does not lead to a CA of tls_config.ca_file "
        + "(the system's roots without one), or a certificate in it has expired"
    }
    // "... error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE at FILE:LINE"
    let reasons = text.split(separator: " ").compactMap { word in
      word.firstRange(of: "OPENSSL_internal:").map { String(word[$0.upperBound...]) }
    }
    return "TLS handshake failed: "
      + (reasons.isEmpty ? text : reasons.joined(separator: ", "))
  }
}

/// Collects the response: status at the head, the body's first bytes, done at the end.
private final class ResponseCollector: ChannelInboundHandler {
  typealias InboundIn = HTTPClientResponsePart

  private let promise: EventLoopPromise<HTTPPostClient.Response>
  private var status: Int?
  private var body = ""

  init(promise: EventLoopPromise<HTTPPostClient.Response>) {
    self.promise = promise
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      status = Int(head.status.code)
    case .body(let buffer):
      let room = HTTPPostClient.bodyLimitBytes - body.utf8.count
      if room > 0 {
        body += String(
          buffer: buffer.getSlice(at: buffer.readerIndex, length: min(room, buffer.readableBytes))
            ?? buffer)
      }
    case .end:
      if let status {
        promise.succeed(.init(status: status, body: body))
      } else {
        promise.fail(HTTPPostClient.Failure.closedEarly)
      }
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    promise.fail(HTTPPostClient.Failure.closedEarly)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    promise.fail(HTTPPostClient.failure(error))
    context.close(promise: nil)
  }
}
