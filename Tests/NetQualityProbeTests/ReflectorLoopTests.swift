import NetQualityCore
import XCTest

@testable import NetQualityProbe

/// Issue 39: reflectors turned against each other. On a port other than 862 one packet
/// spoofed from a reflector's own address and port made it answer itself 401 times, and one
/// spoofed packet a second between two reflectors kept about 401 packets/s going. A reflector
/// must answer neither itself nor another reflector's answer: one spoofed packet, at most one
/// answer.
final class ReflectorLoopTests: XCTestCase {
  func endpoint(_ text: String) throws -> Endpoint {
    try XCTUnwrap(Endpoint(parsing: text), text)
  }

  func senderPacket() throws -> [UInt8] {
    let packet = STAMPSenderPacket(
      sequenceNumber: 1, timestamp: STAMPTimestamp(ntp: WallClock.now()),
      errorEstimate: STAMPErrorEstimate(seconds: 0.001, isSynchronized: false))
    return try packet.encoded(totalLength: 44, key: nil)
  }

  /// Serves every reflector until none has anything waiting for `quietMilliseconds`, or until
  /// `deadlineSeconds`; returns the total answers sent.
  func serveUntilQuiet(
    _ reflectors: [Reflector], quietMilliseconds: Int32 = 300, deadlineSeconds: Double = 5
  ) throws -> Int {
    let deadline = WallClock.monotonicNow().advanced(bySeconds: deadlineSeconds)
    while WallClock.monotonicNow() < deadline {
      var served = 0
      for reflector in reflectors {
        if try reflector.socket.waitUntilReadable(
          timeoutMilliseconds: quietMilliseconds / Int32(reflectors.count))
        {
          served += try reflector.serveWaiting()
        }
      }
      if served == 0 { break }
    }
    return reflectors.reduce(0) { $0 + $1.counters.packetsReflected }
  }

  /// A packet "from" the reflector's own address and port (sent here from its own socket, as
  /// a spoofer's would arrive) is not answered.
  func testReflectorNeverAnswersItself() throws {
    let reflector = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    let packet = try senderPacket()
    XCTAssertTrue(
      try packet.withUnsafeBytes {
        try reflector.socket.send($0, to: reflector.socket.localEndpoint)
      })
    XCTAssertEqual(try serveUntilQuiet([reflector]), 0)
    XCTAssertEqual(reflector.counters.packetsReceived, 1)
    XCTAssertEqual(reflector.counters.refused(.loop), 1)
  }

  /// One packet spoofed from reflector B into reflector A (on other ports than 862): A
  /// answers B once, and B does not answer A's reflected packet.
  func testOneSpoofedPacketIntoTwoReflectorsGivesAtMostOneAnswer() throws {
    let first = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    let second = try Reflector(
      configuration: ReflectorConfiguration(), listen: try endpoint("127.0.0.1:0"))
    let packet = try senderPacket()
    XCTAssertTrue(
      try packet.withUnsafeBytes { try second.socket.send($0, to: first.socket.localEndpoint) })
    XCTAssertLessThanOrEqual(try serveUntilQuiet([first, second]), 1)
    XCTAssertEqual(first.counters.packetsReflected + second.counters.packetsReflected, 1)
    XCTAssertEqual(second.counters.refused(.reflectedPacket), 1)
  }

  /// Two reflectors on the same port number (two hosts of one fleet): a request from the
  /// reflector's own port is another reflector's, never a sender's.
  func testRequestFromTheReflectorsOwnPortIsRefused() throws {
    var policy = ReflectorPolicy(
      configuration: ReflectorConfiguration(),
      now: CaptureTime(seconds: 1_000, nanoseconds: 0))
    policy.localPort = 8_620
    let packet = try senderPacket()
    var reply = [UInt8](repeating: 0, count: 64)
    let now = CaptureTime(seconds: 1_000, nanoseconds: 0)
    let decision = packet.withUnsafeBytes { request in
      reply.withUnsafeMutableBytes { buffer in
        policy.handle(
          request, from: Endpoint(address: IPAddress(ipv4: 192, 0, 2, 9), port: 8_620),
          receivedAt: now, ttl: 64, now: now, reply: buffer)
      }
    }
    guard case .refuse(.loop) = decision else { return XCTFail("\(decision)") }
  }
}
