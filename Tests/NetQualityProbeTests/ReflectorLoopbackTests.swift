import Foundation
import NetQualityCore
import Synchronization
import XCTest

@testable import NetQualityProbe

/// The reflector shell and `UDPSocket` over the loopback interface.
final class ReflectorLoopbackTests: XCTestCase {
  typealias F = STAMPFixtures

  func endpoint(_ text: String) throws -> Endpoint {
    try XCTUnwrap(Endpoint(parsing: text), text)
  }

  /// Sends `packet` from `client` to `reflector`, lets the reflector serve it and returns the
  /// reply as the client received it.
  func roundTrip(
    _ packet: [UInt8], client: UDPSocket, reflector: Reflector, to destination: Endpoint? = nil
  ) throws -> (reply: [UInt8], datagram: ReceivedDatagram) {
    let target = destination ?? reflector.socket.localEndpoint
    XCTAssertTrue(try packet.withUnsafeBytes { try client.send($0, to: target) })
    XCTAssertTrue(try reflector.socket.waitUntilReadable(timeoutMilliseconds: 2_000))
    XCTAssertEqual(try reflector.serveWaiting(), 1)
    XCTAssertTrue(try client.waitUntilReadable(timeoutMilliseconds: 2_000))
    var buffer = [UInt8](repeating: 0, count: 2_048)
    let datagram = try buffer.withUnsafeMutableBytes { try client.receive(into: $0) }
    let received = try XCTUnwrap(datagram)
    return (Array(buffer[0..<received.length]), received)
  }

  func senderPacket(_ sequence: UInt32, length: Int = 44) throws -> [UInt8] {
    let packet = STAMPSenderPacket(
      sequenceNumber: sequence, timestamp: STAMPTimestamp(ntp: WallClock.now()),
      errorEstimate: STAMPErrorEstimate(seconds: 0.001, isSynchronized: false))
    return try packet.encoded(totalLength: length, key: nil)
  }

  func testReflectorAnswersOverIPv4Loopback() throws {
    let reflector = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    XCTAssertNotEqual(reflector.socket.localEndpoint.port, 0)
    XCTAssertTrue(reflector.socket.kernelTimestamps)
    let client = try UDPSocket(binding: try endpoint("127.0.0.1:0"))

    for (index, sequence) in [UInt32(10), 11].enumerated() {
      let request = try senderPacket(sequence, length: 60)
      let t1 = try STAMPSenderPacket(decoding: request, mode: .unauthenticated).timestamp
      let (reply, datagram) = try roundTrip(request, client: client, reflector: reflector)
      XCTAssertEqual(reply.count, 60, "same size as the request")
      XCTAssertEqual(datagram.source, reflector.socket.localEndpoint)
      XCTAssertEqual(datagram.timestampSource, .kernel)
      let packet = try STAMPReflectorPacket(decoding: reply, mode: .unauthenticated)
      XCTAssertEqual(packet.senderSequenceNumber, sequence)
      XCTAssertEqual(packet.sequenceNumber, UInt32(index))
      XCTAssertEqual(packet.senderTimestamp, t1)
      let now = WallClock.now()
      let sent = t1.ntpTime(near: now)
      let received = packet.receiveTimestamp.ntpTime(near: now)
      let replied = packet.timestamp.ntpTime(near: now)
      // One clock on both sides: T1 ≤ T2 ≤ T3 ≤ the client's receive time.
      XCTAssertLessThanOrEqual(sent, received)
      XCTAssertLessThanOrEqual(received, replied)
      XCTAssertLessThanOrEqual(replied, datagram.receiveTime)
      // IP_RECVTTL: Linux sends with TTL 64 by default.
      XCTAssertEqual(packet.senderTTL, 64)
      XCTAssertFalse(packet.errorEstimate.isSynchronized)
    }
    XCTAssertEqual(reflector.counters.packetsReflected, 2)
    XCTAssertEqual(reflector.counters.userSpaceTimestamps, 0)
  }

  /// A reflector on all addresses answers from the address that was probed (IP_PKTINFO), not
  /// from the one routing prefers (127.0.0.1 for all of 127/8): a sender matches answers by
  /// the address it probed, and took these for foreign ones. Both families' sockets.
  func testReflectorOnAllAddressesAnswersFromTheAddressProbed() throws {
    for listen in ["0.0.0.0:0", "[::]:0"] {
      let reflector = try Reflector(
        configuration: ReflectorConfiguration(), listen: try endpoint(listen))
      let client = try UDPSocket(binding: try endpoint("0.0.0.0:0"))
      for address in ["127.0.3.7", "127.0.0.1", "127.1.2.3"] {
        let target = try endpoint("\(address):\(reflector.socket.localEndpoint.port)")
        let (reply, datagram) = try roundTrip(
          try senderPacket(1), client: client, reflector: reflector, to: target)
        XCTAssertEqual(datagram.source, target, listen)
        XCTAssertEqual(reply.count, 44, listen)
      }
    }
  }

  /// Issue 39, item 1: without HMAC, packets a spoofer sends with the prober's address and
  /// port are answered to the prober. It takes none as an answer and counts each one it never
  /// sent (`unexpected`), the sign that its loss meanwhile may be the spoofer's.
  func testAnswersToPacketsTheSenderNeverSentAreCountedUnexpected() throws {
    let reflector = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    let sender = try STAMPSender(options: .init(target: reflector.socket.localEndpoint))
    // What a spoofer's packet is to the reflector: from the prober's address and port, with a
    // sequence number the prober never sent.
    for sequence in [UInt32(1_000_000), 1_000_001, 1_000_002] {
      let packet = try senderPacket(sequence)
      XCTAssertTrue(
        try packet.withUnsafeBytes {
          try sender.socket.send($0, to: reflector.socket.localEndpoint)
        })
      XCTAssertTrue(try reflector.socket.waitUntilReadable(timeoutMilliseconds: 2_000))
      XCTAssertEqual(try reflector.serveWaiting(), 1)
    }
    XCTAssertTrue(try sender.socket.waitUntilReadable(timeoutMilliseconds: 2_000))
    var samples: [ProbeSample] = []
    let deadline = Date().addingTimeInterval(2)
    while sender.counters.unexpected < 3, Date() < deadline {
      try sender.receiveAnswers { samples.append($0) }
    }
    XCTAssertEqual(sender.counters.unexpected, 3)
    XCTAssertEqual(sender.counters.malformed, 0)
    // None taken as an answer: each handed on as unexpected, for the engine to count.
    XCTAssertEqual(
      samples.map(\.sequence), [1_000_000, 1_000_001, 1_000_002], "none taken as an answer")
    XCTAssertTrue(
      samples.allSatisfy {
        if case .unexpected = $0.outcome { return true } else { return false }
      })
  }

  func testRefusedRequestGetsNoReply() throws {
    let reflector = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    let client = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    let short = [UInt8](repeating: 0, count: 20)
    XCTAssertTrue(
      try short.withUnsafeBytes { try client.send($0, to: reflector.socket.localEndpoint) })
    XCTAssertTrue(try reflector.socket.waitUntilReadable(timeoutMilliseconds: 2_000))
    XCTAssertEqual(try reflector.serveWaiting(), 1)
    XCTAssertFalse(try client.waitUntilReadable(timeoutMilliseconds: 100))
    XCTAssertEqual(reflector.counters.refusedTooShort, 1)
  }

  func testDualStackSocketServesIPv4AsMappedAddresses() throws {
    let reflector: Reflector
    do {
      reflector = try Reflector(configuration: ReflectorConfiguration(), listen: endpoint("[::]:0"))
    } catch {
      throw XCTSkip("no IPv6 here: \(error)")
    }
    let client = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    let target = Endpoint(
      address: IPAddress(ipv4: 127, 0, 0, 1), port: reflector.socket.localEndpoint.port)
    let (reply, datagram) = try roundTrip(
      try senderPacket(5), client: client, reflector: reflector, to: target)
    XCTAssertEqual(datagram.source, target)
    let packet = try STAMPReflectorPacket(decoding: reply, mode: .unauthenticated)
    XCTAssertEqual(packet.senderSequenceNumber, 5)
    XCTAssertEqual(packet.senderTTL, 64)
  }

  func testIPv6LoopbackReadsTheHopLimit() throws {
    let reflector: Reflector
    let client: UDPSocket
    do {
      reflector = try Reflector(
        configuration: ReflectorConfiguration(), listen: endpoint("[::1]:0"))
      client = try UDPSocket(binding: endpoint("[::1]:0"))
    } catch {
      throw XCTSkip("no IPv6 loopback here: \(error)")
    }
    let (reply, _) = try roundTrip(try senderPacket(6), client: client, reflector: reflector)
    let packet = try STAMPReflectorPacket(decoding: reply, mode: .unauthenticated)
    XCTAssertEqual(packet.senderSequenceNumber, 6)
    // Linux's default unicast hop limit is 64.
    XCTAssertEqual(packet.senderTTL, 64)
  }

  func testAuthenticatedRoundTrip() throws {
    var configuration = ReflectorConfiguration()
    configuration.keys = [F.key]
    let reflector = try Reflector(configuration: configuration, listen: try endpoint("127.0.0.1:0"))
    let client = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    var request = try STAMPSenderPacket(
      sequenceNumber: 1, timestamp: STAMPTimestamp(ntp: WallClock.now()),
      errorEstimate: F.senderEstimate
    ).encoded(key: F.key)
    let (reply, _) = try roundTrip(request, client: client, reflector: reflector)
    XCTAssertEqual(reply.count, 112)
    // The HMAC checks out although T3 was stamped after the reply was built: it was signed
    // again over the final bytes.
    let packet = try STAMPReflectorPacket(decoding: reply, key: F.key)
    XCTAssertEqual(packet.senderSequenceNumber, 1)
    XCTAssertGreaterThanOrEqual(packet.timestamp.rawValue, packet.receiveTimestamp.rawValue)
    // A request with a broken HMAC is counted and not answered.
    request[0] ^= 0xFF
    XCTAssertTrue(
      try request.withUnsafeBytes { try client.send($0, to: reflector.socket.localEndpoint) })
    XCTAssertTrue(try reflector.socket.waitUntilReadable(timeoutMilliseconds: 2_000))
    _ = try reflector.serveWaiting()
    XCTAssertEqual(reflector.counters.refusedBadHMAC, 1)
  }

  func testRunLoopServesUntilAskedToStop() throws {
    let reflector = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    let target = reflector.socket.localEndpoint
    let box = ReflectorBox(reflector)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
      try? box.reflector.run(checkIntervalMilliseconds: 20) { box.stop.load(ordering: .relaxed) }
      finished.signal()
    }
    thread.start()
    let client = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    var buffer = [UInt8](repeating: 0, count: 256)
    for sequence in UInt32(0)..<3 {
      let request = try senderPacket(sequence)
      XCTAssertTrue(try request.withUnsafeBytes { try client.send($0, to: target) })
      XCTAssertTrue(try client.waitUntilReadable(timeoutMilliseconds: 2_000))
      let datagram = try XCTUnwrap(
        try buffer.withUnsafeMutableBytes { try client.receive(into: $0) })
      let packet = try STAMPReflectorPacket(
        decoding: Array(buffer[0..<datagram.length]), mode: .unauthenticated)
      XCTAssertEqual(packet.sequenceNumber, sequence)
      XCTAssertEqual(packet.senderSequenceNumber, sequence)
    }
    box.stop.store(true, ordering: .relaxed)
    XCTAssertEqual(finished.wait(timeout: .now() + 2), .success)
    XCTAssertEqual(reflector.counters.packetsReflected, 3)
  }

  func testBindingATakenPortSaysSoInOneLine() throws {
    let first = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    XCTAssertThrowsError(try UDPSocket(binding: first.localEndpoint)) { error in
      XCTAssertEqual(
        String(describing: error), "cannot bind \(first.localEndpoint): Address already in use")
    }
  }

  func testIPv4SocketCannotSendToIPv6() throws {
    let socket = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    let bytes = [UInt8](repeating: 0, count: 4)
    XCTAssertThrowsError(try bytes.withUnsafeBytes { try socket.send($0, to: endpoint("[::1]:9")) })
  }

  func testTrafficClassCanBeSet() throws {
    let socket = try UDPSocket(binding: try endpoint("127.0.0.1:0"))
    try socket.setTrafficClass(46 << 2)  // DSCP EF
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    XCTAssertEqual(getsockopt(socket.descriptor, Int32(IPPROTO_IP), IP_TOS, &value, &length), 0)
    XCTAssertEqual(value, 46 << 2)
  }

  func testEndpointParsing() {
    XCTAssertEqual(
      Endpoint(parsing: "0.0.0.0:862"), Endpoint(address: IPAddress(ipv4: 0), port: 862))
    XCTAssertEqual(Endpoint(parsing: "[::]:862")?.address, IPAddress(high: 0, low: 0))
    XCTAssertEqual(Endpoint(parsing: "[2001:db8::1]:0")?.port, 0)
    for bad in [
      "", "862", "::1:862", "[::1]", "1.2.3.4", "1.2.3.4:65536", "host:862", "[1.2.3.4]:5",
    ] {
      XCTAssertNil(Endpoint(parsing: bad), bad)
    }
  }
}

/// Hands a reflector to the thread that runs it; the test reads it only after that thread
/// has finished.
private final class ReflectorBox: @unchecked Sendable {
  let reflector: Reflector
  let stop = Atomic<Bool>(false)

  init(_ reflector: Reflector) {
    self.reflector = reflector
  }
}
