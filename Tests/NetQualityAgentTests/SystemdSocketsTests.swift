import Foundation
import XCTest

@testable import NetQualityAgent

/// `--web.systemd-socket` reads LISTEN_PID and LISTEN_FDS as sd_listen_fds(3) does, and serves
/// only listening stream sockets (sd_is_socket(3)'s checks). Loopback sockets only.
final class SystemdSocketsTests: XCTestCase {
  func testTheSocketsStartAtFdThreeForThisProcessOnly() {
    XCTAssertEqual(
      try SystemdSockets.descriptors(listenPID: "42", listenFDs: "2", pid: 42).get(), [3, 4])
    XCTAssertEqual(
      SystemdSockets.descriptors(listenPID: "41", listenFDs: "1", pid: 42),
      .failure(.init(reason: "the sockets passed are for process 41, not this one (42)")))
    XCTAssertEqual(
      SystemdSockets.descriptors(listenPID: "42", listenFDs: "0", pid: 42),
      .failure(.init(reason: "no socket was passed (LISTEN_FDS=0)")))
    XCTAssertEqual(
      SystemdSockets.descriptors(listenPID: "42", listenFDs: "x", pid: 42),
      .failure(.init(reason: "LISTEN_FDS 'x' is not a number of sockets")))
    guard
      case .failure(let failure) = SystemdSockets.descriptors(
        listenPID: nil, listenFDs: nil, pid: 42)
    else { return XCTFail("no variables, yet sockets") }
    XCTAssertEqual(
      failure.description,
      "--web.systemd-socket: no socket was passed (LISTEN_PID and LISTEN_FDS are not set: "
        + "start the agent from a systemd socket unit, e.g. netquality.socket)")
  }

  func testOnlyAListeningStreamSocketIsServed() throws {
    let stream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(stream) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(stream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    XCTAssertEqual(bound, 0)
    XCTAssertEqual(
      SystemdSockets.problem(stream),
      "fd \(stream) is not listening (ListenStream= in the socket unit)")
    XCTAssertEqual(listen(stream, 4), 0)
    XCTAssertNil(SystemdSockets.problem(stream))

    let datagram = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(datagram) }
    XCTAssertEqual(
      SystemdSockets.problem(datagram),
      "fd \(datagram) is not a stream socket (the HTTP server needs one)")

    var pipeEnds: [Int32] = [0, 0]
    XCTAssertEqual(pipe(&pipeEnds), 0)
    defer {
      for end in pipeEnds { close(end) }
    }
    XCTAssertEqual(SystemdSockets.problem(pipeEnds[0]), "fd \(pipeEnds[0]) is not a socket")
  }
}
