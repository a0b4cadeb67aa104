import Foundation
import NetQualityCore
import NetQualityProbe
import XCTest

/// `netquality reflect` as an operator runs it: the ready line, replies, the summary at SIGTERM
/// and one-line errors.
extension CommandLineTests {
  /// Polls standard output until it contains `text`, for up to `seconds`.
  func waitForOutput(_ process: BinaryProcess, _ text: String, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
      if process.standardOutput.contains(text) { return true }
      if process.waitForExit(seconds: 0.05) { return process.standardOutput.contains(text) }
    } while Date() < deadline
    return false
  }

  /// `reflect --listen LISTEN` started, and the port it says it reflects on at 127.0.0.1.
  func startReflector(listen: String) throws -> (BinaryProcess, UInt16) {
    let reflector = try BinaryProcess(
      binary: binary, arguments: ["reflect", "--listen", listen], directory: directory)
    XCTAssertTrue(waitForOutput(reflector, "timestamps)\n", seconds: 30), reflector.standardError)
    let line = reflector.standardOutput
    XCTAssertTrue(line.hasPrefix("reflecting on 127.0.0.1:"), line)
    let portText = line.dropFirst("reflecting on 127.0.0.1:".count).prefix { $0.isNumber }
    return (reflector, try XCTUnwrap(UInt16(portText)))
  }

  func testReflectAnswersAndSummarisesOnSIGTERM() throws {
    let (reflector, port) = try startReflector(listen: "127.0.0.1:0")
    defer { reflector.stop() }
    XCTAssertTrue(
      reflector.standardOutput.hasSuffix(" (unauthenticated, kernel timestamps)\n"),
      reflector.standardOutput)

    let client = try UDPSocket(binding: Endpoint(address: IPAddress(ipv4: 127, 0, 0, 1), port: 0))
    let request = try STAMPSenderPacket(
      sequenceNumber: 42, timestamp: STAMPTimestamp(ntp: WallClock.now()),
      errorEstimate: STAMPErrorEstimate(seconds: 0.001, isSynchronized: false)
    ).encoded(key: nil)
    let target = Endpoint(address: IPAddress(ipv4: 127, 0, 0, 1), port: port)
    XCTAssertTrue(try request.withUnsafeBytes { try client.send($0, to: target) })
    XCTAssertTrue(try client.waitUntilReadable(timeoutMilliseconds: 5_000))
    var buffer = [UInt8](repeating: 0, count: 256)
    let datagram = try XCTUnwrap(try buffer.withUnsafeMutableBytes { try client.receive(into: $0) })
    let reply = try STAMPReflectorPacket(
      decoding: Array(buffer[0..<datagram.length]), mode: .unauthenticated)
    XCTAssertEqual(datagram.length, 44)
    XCTAssertEqual(reply.senderSequenceNumber, 42)
    XCTAssertEqual(reply.sequenceNumber, 0)
    XCTAssertFalse(reply.errorEstimate.isSynchronized)

    kill(reflector.process.processIdentifier, SIGTERM)
    XCTAssertTrue(reflector.waitForExit(seconds: 10))
    XCTAssertEqual(reflector.status, 0)
    XCTAssertTrue(
      reflector.standardOutput.contains(
        "\nreceived 1 packets (44 bytes), reflected 1 (44 bytes); refused too_short=0"),
      reflector.standardOutput)
    XCTAssertEqual(reflector.standardError, "")
  }

  /// Issue 40: `reflect --listen` and `probe` take a host name (`localhost` only: loopback).
  func testReflectAndProbeTakeAHostName() throws {
    let (reflector, port) = try startReflector(listen: "localhost:0")
    defer { reflector.stop() }
    let probe = try run(["probe", "localhost:\(port)", "--count", "2", "--quiet"], seconds: 30)
    XCTAssertEqual(probe.status, 0, probe.standardError)
  }

  func testReflectOnATakenPortIsOneLine() throws {
    let taken = try UDPSocket(binding: Endpoint(address: IPAddress(ipv4: 127, 0, 0, 1), port: 0))
    let result = try run(["reflect", "--listen", "\(taken.localEndpoint)"], seconds: 30)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.standardError,
      "netquality: error: cannot bind \(taken.localEndpoint): Address already in use\n")
    XCTAssertEqual(result.standardOutput, "")
  }

  func testReflectRefusesABadAddressAndAShortKey() throws {
    let bad = try run(["reflect", "--listen", "bad_name:862"], seconds: 30)
    XCTAssertEqual(bad.status, 2)
    XCTAssertTrue(bad.standardError.hasPrefix("netquality: error: --listen bad_name:862: "))
    let keys = directory.appendingPathComponent("keys")
    try Data("weak 00112233\n".utf8).write(to: keys)
    let weak = try run(
      ["reflect", "--listen", "127.0.0.1:0", "--auth-keys", keys.path], seconds: 30)
    XCTAssertEqual(weak.status, 1)
    XCTAssertEqual(
      weak.standardError,
      "netquality: error: key file \(keys.path) line 1: key weak has 4 bytes; at least 16 "
        + "(128 bits) are needed\n")
  }
}
