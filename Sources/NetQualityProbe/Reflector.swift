import NetQualityCore

/// The STAMP Session-Reflector's socket shell: reads requests from a `UDPSocket`, lets a
/// `ReflectorPolicy` decide, stamps T3 as late as possible (right before `sendto`, after the
/// reply is built; RFC 8762 section 4.3.1) and sends the reply back to the request's source.
///
/// Receive and reply buffers are allocated once; the unauthenticated path allocates nothing
/// per packet. Authenticated mode computes two HMACs per reply (the request's, checked, and the
/// reply's, over its final bytes), and swift-crypto's public API allocates for each (it copies
/// its SHA-256 contexts, which are class instances): measured, 5 allocations per reply.
/// Used by one thread at a time; `counters` can be read once `run` has returned.
public final class Reflector {
  public let socket: UDPSocket
  public private(set) var policy: ReflectorPolicy
  private let request: UnsafeMutableRawBufferPointer
  private let reply: UnsafeMutableRawBufferPointer

  /// The largest UDP payload (65,535 − 8 − 20 for IPv4; IPv6 jumbograms aside): a buffer this
  /// large never truncates, so an oversized request is recognised, not cut.
  public static let bufferBytes = 65_536

  /// A reflector listening on `endpoint` with `configuration`.
  public init(configuration: ReflectorConfiguration, listen endpoint: Endpoint) throws(SocketError)
  {
    socket = try UDPSocket(binding: endpoint)
    policy = ReflectorPolicy(configuration: configuration, now: WallClock.monotonicNow())
    policy.localPort = socket.localEndpoint.port
    request = .allocate(byteCount: Self.bufferBytes, alignment: 8)
    reply = .allocate(byteCount: Self.bufferBytes, alignment: 8)
  }

  deinit {
    request.deallocate()
    reply.deallocate()
  }

  public var counters: ReflectorCounters { policy.counters }

  /// Serves requests until `shouldStop` returns true, which is asked at least every
  /// `checkIntervalMilliseconds` (and after every signal that interrupts the wait).
  public func run(checkIntervalMilliseconds: Int32 = 100, until shouldStop: () -> Bool)
    throws(SocketError)
  {
    while !shouldStop() {
      if try socket.waitUntilReadable(timeoutMilliseconds: checkIntervalMilliseconds) {
        try serveWaiting()
      }
    }
  }

  /// Answers every datagram waiting on the socket; returns how many were read.
  @discardableResult
  public func serveWaiting() throws(SocketError) -> Int {
    var served = 0
    while let datagram = try socket.receive(into: request) {
      served += 1
      serve(datagram)
    }
    return served
  }

  private func serve(_ datagram: ReceivedDatagram) {
    if datagram.timestampSource == .userSpace { policy.countUserSpaceTimestamp() }
    let received = UnsafeRawBufferPointer(
      rebasing: request[0..<min(datagram.length, request.count)])
    let decision = policy.handle(
      received, from: datagram.source, receivedAt: datagram.receiveTime, ttl: datagram.ttl,
      isTruncated: datagram.isTruncated, now: WallClock.monotonicNow(), reply: reply)
    // The policy never answers longer than the request; checked here too, at the socket,
    // because a reflector that amplified would be an attack tool.
    guard case .reply(let length, let key) = decision, length <= received.count else { return }
    let outgoing = UnsafeMutableRawBufferPointer(rebasing: reply[0..<length])
    do {
      // T3: the last thing before the send (and the HMAC over it in authenticated mode).
      try STAMPReflectorPacket.stamp(STAMPTimestamp(ntp: WallClock.now()), into: outgoing, key: key)
      // From the address the request was sent to: on 0.0.0.0 or ::, the routing table's
      // choice may be another of the host's addresses, whose answer the sender cannot take
      // for its probe's (a sender matches answers by the address it probed).
      if try !socket.send(
        UnsafeRawBufferPointer(outgoing), to: datagram.source, from: datagram.destination)
      {
        policy.countSendError(length: length)
      }
    } catch {
      policy.countSendError(length: length)
    }
  }
}
