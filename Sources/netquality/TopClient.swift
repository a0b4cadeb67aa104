import Foundation
import Glibc
import NIOCore
import NIOPosix
import NIOSSL

/// `top`'s GET on SwiftNIO: one connection per request, TLS (NIOSSL) for https, the answer
/// read raw into `ResponseReader` (bounded in size and time), one line for any failure.
extension HTTPEndpoint {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The body of a 200 answer to `GET path`.
  func get(_ path: String) throws -> String {
    let bytes = try exchange(Array(request(path: path).utf8))
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 200") || text.hasPrefix("HTTP/1.0 200"),
      let bodyStart = text.range(of: "\r\n\r\n")
    else {
      let status = text.split(separator: "\r\n").first.map(String.init) ?? "nothing"
      if status.hasPrefix("HTTP/1.1 401") {
        throw Failure(
          description: "\(status): "
            + (credentials == nil
              ? "the agent asks for a user and password (USER:PASSWORD@ in --url, or "
                + "--username and --password-file)"
              : "the agent refused user \(credentials?.username ?? "")'s password"))
      }
      throw Failure(description: "unexpected answer: \(status)")
    }
    return String(text[bodyStart.upperBound...])
  }

  private func exchange(_ request: [UInt8]) throws -> [UInt8] {
    let tlsContext = self.tlsContext
    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
    let promise = eventLoop.makePromise(of: [UInt8].self)
    let (seconds, attoseconds) = Self.deadline.components
    let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    let deadline = eventLoop.scheduleTask(in: timeout) {
      promise.fail(Failure(description: "no whole answer within \(Self.deadline)"))
    }
    promise.futureResult.whenComplete { _ in deadline.cancel() }
    // SNI and the certificate's name check take a name; for an address NIOSSL checks the
    // certificate against the address connected to.
    let serverName = Self.isAddress(host) ? nil : host
    ClientBootstrap(group: eventLoop)
      .connectTimeout(.seconds(2))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          if let tlsContext {
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: tlsContext, serverHostname: serverName))
          }
          try channel.pipeline.syncOperations.addHandler(
            RawResponseCollector(promise: promise, maxBytes: Self.maxResponseBytes))
        }
      }
      .connect(host: host, port: Int(port))
      .whenComplete { result in
        switch result {
        case .failure(let error):
          promise.fail(Failure(description: "cannot connect: \(Self.reason(error))"))
        case .success(let channel):
          promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
          channel.writeAndFlush(ByteBuffer(bytes: request)).whenFailure { error in
            promise.fail(Failure(description: Self.reason(error)))
          }
        }
      }
    return try promise.futureResult.wait()
  }

  static func isAddress(_ host: String) -> Bool {
    (try? SocketAddress(ipAddress: host, port: 0)) != nil
  }

  /// An error as one short line.
  static func reason(_ error: any Error) -> String {
    if let failure = error as? Failure { return failure.description }
    if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
    if let connect = error as? NIOConnectionError {
      let attempts = connect.connectionErrors.map { reason($0.error) }
      if attempts.isEmpty { return "cannot resolve \(connect.host)" }
      return Set(attempts).sorted().joined(separator: "; ")
    }
    if error is ChannelError, case ChannelError.connectTimeout = error {
      return "connect timed out"
    }
    if let tls = error as? NIOSSLError { return "TLS: \(tls)" }
    return "\(error)"
  }

  /// The most of an answer `get` reads. The agent's largest page (1,000 peers, `requestPath`)
  /// is a few hundred kilobytes of JSON; anything past this is not the agent, and reading it
  /// whole would take as much memory as whatever answers cares to send.
  static let maxResponseBytes = 16 << 20
  /// The longest `get` waits for a whole answer, connecting (at most 2 s) and the TLS
  /// handshake included: one that trickles in would otherwise hold the screen and the keys for
  /// as long as it lasts.
  static let deadline = Duration.seconds(10)

  /// An HTTP/1.1 response as it comes in: complete once the header and the Content-Length
  /// bytes after it are in (RFC 9112 section 6.3), refused past `maxBytes`. The header's end
  /// is looked for only in what arrived since the last look, and the header parsed once.
  struct ResponseReader {
    let maxBytes: Int
    private(set) var bytes: [UInt8] = []
    /// Header and body, once the header announced the body's length.
    private var expectedBytes: Int?
    private var headerEnd: Int?
    private var searchedUpTo = 0

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    var isComplete: Bool { expectedBytes.map { bytes.count >= $0 } ?? false }

    /// Takes in `chunk`; false when the response is (or announces itself) larger than
    /// `maxBytes`.
    mutating func append(_ chunk: ArraySlice<UInt8>) -> Bool {
      guard bytes.count + chunk.count <= maxBytes else { return false }
      bytes += chunk
      guard headerEnd == nil, let end = findHeaderEnd() else { return true }
      headerEnd = end
      guard let length = Self.contentLength(bytes[..<end]) else { return true }
      let (total, overflow) = end.addingReportingOverflow(length)
      guard !overflow, total <= maxBytes else { return false }
      expectedBytes = total
      return true
    }

    /// The offset just past the header's empty line, if it arrived.
    private mutating func findHeaderEnd() -> Int? {
      let terminator: [UInt8] = [13, 10, 13, 10]
      var index = max(0, searchedUpTo - 3)
      while index + 4 <= bytes.count {
        if bytes[index..<index + 4].elementsEqual(terminator) { return index + 4 }
        index += 1
      }
      searchedUpTo = bytes.count
      return nil
    }

    private static func contentLength(_ header: ArraySlice<UInt8>) -> Int? {
      let text = String(decoding: header, as: UTF8.self).lowercased()
      guard
        let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
        let length = Int(
          line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
        length >= 0
      else { return nil }
      return length
    }
  }
}

/// Reads the answer as bytes into `ResponseReader` and completes once it is whole, or the
/// server closed (the caller judges what came), or it grew past the bound.
private final class RawResponseCollector: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  private let promise: EventLoopPromise<[UInt8]>
  private var reader: HTTPEndpoint.ResponseReader

  init(promise: EventLoopPromise<[UInt8]>, maxBytes: Int) {
    self.promise = promise
    reader = HTTPEndpoint.ResponseReader(maxBytes: maxBytes)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    guard reader.append(ArraySlice(buffer.readableBytesView)) else {
      promise.fail(
        HTTPEndpoint.Failure(
          description: "the answer is larger than \(HTTPEndpoint.maxResponseBytes >> 20) MiB: "
            + "not a netquality agent's page of peers"))
      context.close(promise: nil)
      return
    }
    if reader.isComplete {
      promise.succeed(reader.bytes)
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    promise.succeed(reader.bytes)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A server that closes without TLS's close_notify has still said what it said.
    if let tls = error as? NIOSSLError, case .uncleanShutdown = tls {
      promise.succeed(reader.bytes)
    } else {
      promise.fail(HTTPEndpoint.Failure(description: HTTPEndpoint.reason(error)))
    }
    context.close(promise: nil)
  }
}
