import NIOCore
import NIOHTTPTypes
import NIOSSL

/// Counts connections whose TLS handshake failed — a plain HTTP request to the TLS port, a
/// client without the certificate the policy needs, or with one the client CA did not sign —
/// for `netquality_http_tls_handshake_failures_total`. NIOSSL reports the failure as an error
/// passed along the connection's pipeline before closing it.
final class TLSFailureCounter: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart

  private let counters: WebSecurity.Counters
  private var counted = false

  init(counters: WebSecurity.Counters) {
    self.counters = counters
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    // Only the handshake's: an unclean shutdown after answers is not a refusal.
    if !counted, case .handshakeFailed = error as? NIOSSLError {
      counted = true
      counters.tlsHandshakeFailures.add(1, ordering: .relaxed)
    }
    context.fireErrorCaught(error)
  }
}
