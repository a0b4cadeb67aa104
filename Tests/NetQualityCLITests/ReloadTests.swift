import Foundation
import NetQualityAgent
import NetQualityConfig
import XCTest

/// SIGHUP applies the file through the same path as the start: peer groups, `max_streams`
/// and the rest change in the running agent, as its API shows; keys that need a restart are
/// named and keep their value.
extension CommandLineTests {
  func peerNames(_ document: [String: Any]) -> [String] {
    (document["peers"] as? [[String: Any]] ?? []).compactMap { $0["peer"] as? String }
  }

  func configuration(_ document: [String: Any]) -> [String: Any] {
    document["configuration"] as? [String: Any] ?? [:]
  }

  func testReloadAddsAndRemovesAPeerGroupAndChangesMaxStreams() throws {
    guard getuid() == 0 else { throw XCTSkip("the demo call is captured on lo: needs root") }
    let port: UInt16 = 19_473
    let config = directory.appendingPathComponent("reload.yaml")
    let base = "listen: \"127.0.0.1:\(port)\"\ntick_interval: 1\n"
    try Data((base + "max_streams: 1000\n").utf8).write(to: config)
    let agent = try BinaryProcess(
      binary: binary, arguments: ["run", "--demo", "--config", config.path], directory: directory)
    defer { agent.stop() }
    func reload(_ yaml: String) throws {
      try Data((base + yaml).utf8).write(to: config)
      let reloads = agent.standardError.components(separatedBy: "reloaded ").count
      kill(agent.process.processIdentifier, SIGHUP)
      let deadline = Date().addingTimeInterval(10)
      while agent.standardError.components(separatedBy: "reloaded ").count == reloads {
        guard Date() < deadline, !agent.waitForExit(seconds: 0.05) else {
          return XCTFail("no reload logged: \(agent.standardError)")
        }
      }
    }

    let plain = HTTPGet.waitFor(port: port, path: "/api/v1/peers", seconds: 30) {
      self.peerNames($0) == ["127.0.0.2"]
    }
    XCTAssertNotNil(plain, agent.standardError)

    try reload(
      "max_streams: 7\npeers:\n  - name: demo-peer\n    addresses: [127.0.0.2/32]\n")
    let grouped = HTTPGet.waitFor(port: port, path: "/api/v1/peers", seconds: 10) {
      self.peerNames($0) == ["demo-peer"]
    }
    XCTAssertNotNil(grouped, "the group's name replaces the address after the reload")
    let status = try XCTUnwrap(HTTPGet.json(port: port, path: "/api/v1/status"))
    XCTAssertEqual(configuration(status)["max_streams"] as? Int, 7)
    let groups = configuration(status)["peers"] as? [[String: Any]] ?? []
    XCTAssertEqual(groups.compactMap { $0["name"] as? String }, ["demo-peer"])
    XCTAssertEqual(status["last_reload_successful"] as? Bool, true)
    XCTAssertTrue(
      agent.standardError.contains("reloaded \(config.path): peers, max_streams"),
      agent.standardError)

    // Removing the group and changing a key that needs a restart.
    try reload("max_streams: 9\nbpf_filter: \"udp and port 47000\"\n")
    let ungrouped = HTTPGet.waitFor(port: port, path: "/api/v1/peers", seconds: 10) {
      self.peerNames($0) == ["127.0.0.2"]
    }
    XCTAssertNotNil(ungrouped, "the address is the peer again once the group is gone")
    let after = try XCTUnwrap(HTTPGet.json(port: port, path: "/api/v1/status"))
    XCTAssertEqual(configuration(after)["max_streams"] as? Int, 9)
    XCTAssertEqual((configuration(after)["peers"] as? [Any])?.count, 0)
    XCTAssertEqual(after["restart_pending"] as? [String], ["bpf_filter"])
    XCTAssertEqual(
      configuration(after)["bpf_filter"] as? String, AgentConfiguration.defaultFilter,
      "kept until a restart")
    XCTAssertTrue(
      agent.standardError.contains("changed but waiting for a restart: bpf_filter"),
      agent.standardError)
  }
}

/// `check-config` beyond the file: the capture filter compiled, interfaces and directories
/// looked up on this host.
extension CommandLineTests {
  func testCheckConfigCompilesTheFilterAndLooksAtTheHost() throws {
    let config = directory.appendingPathComponent("host.yaml")
    try Data(
      "snaplen: 512\nbpf_filter: \"udpx and\"\ninterfaces: [nq-none0, lo]\ndashboard_file: /nonexistent/d/dash.txt\nstorage: {enabled: false}\n"
        .utf8
    ).write(to: config)
    let bad = try run(["check-config", config.path])
    XCTAssertEqual(bad.status, 1)
    let lines = bad.standardError.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 3, bad.standardError)
    XCTAssertTrue(
      lines[0].hasPrefix(
        "netquality: error: \(config.path): line 2: bpf_filter: 'udpx and' does not compile: "),
      lines[0])
    XCTAssertTrue(
      lines[1].hasPrefix(
        "netquality: warning: \(config.path): line 3: interfaces: not on this host: nq-none0 "),
      lines[1])
    XCTAssertEqual(
      lines[2],
      "netquality: warning: \(config.path): line 4: dashboard_file: directory /nonexistent/d does not exist on this host"
    )
    try Data("interfaces: [nq-none0]\nstorage: {enabled: false}\n".utf8).write(to: config)
    let warned = try run(["check-config", config.path])
    XCTAssertEqual(warned.status, 0, "a warning alone: the agent may run on another host")
    XCTAssertTrue(warned.standardOutput.contains("1 warning(s)"), warned.standardOutput)
    // Probe and reflector key files are read at start: one that cannot be read is said.
    try Data(
      "storage: {enabled: false}\nprobes:\n  - target: \"192.0.2.9:862\"\n    auth_key_file: /nonexistent/k\n"
        .utf8
    ).write(to: config)
    let keys = try run(["check-config", config.path])
    XCTAssertEqual(keys.status, 0)
    XCTAssertEqual(
      keys.standardError,
      "netquality: warning: \(config.path): line 4: probes[0].auth_key_file: cannot read key file "
        + "/nonexistent/k: No such file or directory\n")
  }

  func testFatalErrorsHaveTheErrorForm() throws {
    for arguments in [
      ["run", "--interface", "lo", "--listen", "bad_name:9470"],
      ["run", "--interface", "lo", "--listen", "999.1.1.1:80"],
      ["run", "--interface", "lo", "--listen", "127.0.0.1:19472", "--dashboard", "/nonexistent/x"],
    ] {
      let result = try run(arguments)
      XCTAssertNotEqual(result.status, 0)
      let lines = result.standardError.split(separator: "\n")
      XCTAssertTrue(
        lines.last?.hasPrefix("netquality: error: ") ?? false,
        "\(arguments): \(result.standardError)")
      XCTAssertFalse(result.standardError.contains("listening on"), result.standardError)
    }
  }
}

/// The dashboard file under logrotate's `copytruncate`: the next frame starts the emptied file
/// (appended at its new end) instead of landing at the old offset behind NUL bytes.
extension CommandLineTests {
  func testDashboardSurvivesCopyTruncate() throws {
    guard getuid() == 0 else { throw XCTSkip("the demo call is captured on lo: needs root") }
    let dashboard = directory.appendingPathComponent("dashboard.txt")
    let config = directory.appendingPathComponent("dash.yaml")
    try Data("listen: \"127.0.0.1:19468\"\ntick_interval: 0.5\n".utf8).write(to: config)
    let agent = try BinaryProcess(
      binary: binary,
      arguments: ["run", "--demo", "--config", config.path, "--dashboard", dashboard.path],
      directory: directory)
    defer { agent.stop() }
    func frames() -> Int {
      let text = (try? String(contentsOf: dashboard, encoding: .utf8)) ?? ""
      return text.components(separatedBy: "\n=== ").count - (text.hasPrefix("=== ") ? 0 : 1)
    }
    func waitForFrames(_ count: Int) -> Bool {
      let deadline = Date().addingTimeInterval(20)
      while frames() < count {
        guard Date() < deadline, !agent.waitForExit(seconds: 0.1) else { return false }
      }
      return true
    }
    XCTAssertTrue(waitForFrames(3), agent.standardError)
    // copytruncate: copy the file away, then cut it to nothing in place.
    let size = try XCTUnwrap(
      FileManager.default.attributesOfItem(atPath: dashboard.path)[.size] as? Int)
    XCTAssertGreaterThan(size, 0)
    XCTAssertEqual(truncate(dashboard.path, 0), 0)
    XCTAssertTrue(waitForFrames(1), agent.standardError)
    let bytes = try Data(contentsOf: dashboard)
    XCTAssertFalse(bytes.contains(0), "no hole of NUL bytes where the old frames were")
    XCTAssertTrue(bytes.starts(with: Data("=== ".utf8)), String(decoding: bytes, as: UTF8.self))
  }

  /// logrotate without `copytruncate` and without a SIGHUP: the file moved away is noticed at
  /// the next tick and a new one started at the path; the moved file gets no more frames.
  func testDashboardMovedAwayIsFollowedWithoutASignal() throws {
    guard getuid() == 0 else { throw XCTSkip("the demo call is captured on lo: needs root") }
    let dashboard = directory.appendingPathComponent("dashboard.txt")
    let moved = directory.appendingPathComponent("dashboard.txt.1")
    let config = directory.appendingPathComponent("dash.yaml")
    try Data(
      "listen: \"127.0.0.1:19467\"\ntick_interval: 0.5\nstorage: {enabled: false}\n".utf8
    ).write(to: config)
    let agent = try BinaryProcess(
      binary: binary,
      arguments: ["run", "--demo", "--config", config.path, "--dashboard", dashboard.path],
      directory: directory)
    defer { agent.stop() }
    func size(_ url: URL) -> Int {
      (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }
    func wait(_ condition: () -> Bool) -> Bool {
      let deadline = Date().addingTimeInterval(20)
      while !condition() {
        guard Date() < deadline, !agent.waitForExit(seconds: 0.1) else { return false }
      }
      return true
    }
    XCTAssertTrue(wait { size(dashboard) > 0 }, agent.standardError)
    try FileManager.default.moveItem(at: dashboard, to: moved)
    let movedSize = size(moved)
    XCTAssertTrue(wait { size(dashboard) > 0 }, agent.standardError)
    // A frame being written as the file moved may still land in it; none after the next one.
    let settled = size(moved)
    XCTAssertTrue(wait { size(dashboard) > 2_000 }, agent.standardError)
    XCTAssertEqual(size(moved), settled)
    XCTAssertGreaterThanOrEqual(settled, movedSize)
    XCTAssertTrue(agent.standardError.contains("was moved or removed; writing a new one"))
  }
}

extension CommandLineTests {
  func testVersionIsTheBuildsVersion() throws {
    let result = try run(["--version"])
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.standardOutput, "\(BuildInfo.version)\n")
  }
}
