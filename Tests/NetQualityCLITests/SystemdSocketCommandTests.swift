import Foundation
import XCTest

/// Issue 40: `--web.systemd-socket` serves the listening socket another process bound and
/// passed as fd 3 with LISTEN_FDS and LISTEN_PID (sd_listen_fds(3)): systemd-socket-activate
/// when installed (systemd's own launcher), else a launcher of a few lines that does the same.
/// Loopback only.
extension CommandLineTests {
  /// Binds and listens on 127.0.0.1:PORT, makes it fd 3, sets LISTEN_FDS=1 and LISTEN_PID to
  /// its own process id, and execs the rest of its arguments (the same process, so the same id).
  static let socketLauncher = """
    import os, socket, sys
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(sys.argv[1])))
    listener.listen(64)
    if listener.fileno() != 3:
        os.dup2(listener.fileno(), 3)
    os.set_inheritable(3, True)
    os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
    os.execv(sys.argv[2], sys.argv[2:])
    """

  /// The launchers this host has: systemd-socket-activate, and python3 with `socketLauncher`.
  func socketActivationLaunchers(port: UInt16) throws -> [[String]] {
    var launchers: [[String]] = []
    let systemd = "/usr/bin/systemd-socket-activate"
    if FileManager.default.isExecutableFile(atPath: systemd) {
      launchers.append([systemd, "--listen=127.0.0.1:\(port)"])
    }
    let script = directory.appendingPathComponent("socket-launcher.py")
    try Data(Self.socketLauncher.utf8).write(to: script)
    launchers.append(["/usr/bin/env", "python3", script.path, "\(port + 1)"])
    return launchers
  }

  func testTheSystemdSocketIsServedInsteadOfTheListenAddress() throws {
    guard getuid() == 0 else { throw XCTSkip("capturing on lo needs root") }
    let config = directory.appendingPathComponent("socket.yaml")
    try Data("storage: {enabled: false}\ntelemetry_path: /nq/metrics\n".utf8).write(to: config)
    let listenPort: UInt16 = 19_489
    for launcher in try socketActivationLaunchers(port: 19_490) {
      guard
        let socketPort = launcher.last.flatMap({ $0.split(separator: ":").last })
          .flatMap({ UInt16($0) })
      else { return XCTFail("no port in \(launcher)") }
      let agent = try BinaryProcess(
        binary: binary,
        arguments: [
          "run", "--config", config.path, "--interface", "lo", "--web.systemd-socket",
          "--web.listen-address", "127.0.0.1:\(listenPort)",
        ],
        directory: directory, launcher: launcher)
      defer { agent.stop() }
      // systemd-socket-activate starts the agent at the first connection, as systemd does.
      let status = HTTPGet.waitFor(port: socketPort, path: "/api/v1/status", seconds: 30) { _ in
        true
      }
      XCTAssertNotNil(status, "\(launcher): \(agent.standardError)")
      let metrics = HTTPGet.get(port: socketPort, path: "/nq/metrics")
      XCTAssertEqual(metrics?.status, 200, agent.standardError)
      XCTAssertEqual(metrics?.body.contains("netquality_build_info{"), true)
      XCTAssertEqual(HTTPGet.get(port: socketPort, path: "/metrics")?.status, 404)
      XCTAssertTrue(
        agent.standardError.contains(
          "listening on http://127.0.0.1:\(socketPort) (systemd socket, fd 3)"),
        agent.standardError)
      // The listen address names the agent but is not listened on.
      XCTAssertNil(HTTPGet.get(port: listenPort, path: "/-/healthy"))
      // SIGINT stops it (Hummingbird's connections quiesced as on a bound port), cleanly.
      XCTAssertEqual(agent.stop(), SIGINT, "\(launcher): \(agent.standardError)")
      XCTAssertEqual(agent.status, 0, agent.standardError)
    }
  }

  func testTheSystemdSocketFlagWithoutASocketIsOneLine() throws {
    let result = try run(["run", "--interface", "lo", "--web.systemd-socket"])
    XCTAssertEqual(result.status, 2)
    XCTAssertTrue(
      result.standardError.hasPrefix(
        "netquality: error: --web.systemd-socket: no socket was passed (LISTEN_PID and "
          + "LISTEN_FDS are not set"), result.standardError)
    XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
  }
}
