import Foundation
import XCTest

/// Configuration paths that name no regular file — `/dev/zero`, a FIFO, a file of 100 MB —
/// read as the configuration: `check-config` refuses each in one line at once; a reload says
/// so in one line, keeps the running configuration, the next good SIGHUP applies, and SIGTERM
/// still stops the agent within 5 s, even during the reload of a large valid file. (Read naively, `/dev/zero` grew the agent by 10 GB in
/// 30 s and a FIFO blocked the reload in `open` for good, SIGTERM no longer stopping it.)
extension CommandLineTests {
  /// What stands at the configuration path instead of a file, and the reason given for it.
  enum NotAFile: CaseIterable {
    case devZero
    case fifo
    case hundredMegabytes

    var reason: String {
      switch self {
      case .devZero: "cannot read: not a regular file (a character device)"
      case .fifo: "cannot read: not a regular file (a FIFO)"
      case .hundredMegabytes: "cannot read: larger than 16 MiB, the most read from such a file"
      }
    }

    /// Puts it at `path`, in place of what was there.
    func place(at path: String) throws {
      try? FileManager.default.removeItem(atPath: path)
      switch self {
      case .devZero:
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
      case .fifo:
        guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
      case .hundredMegabytes:
        // YAML comments, so only the size is wrong with it.
        let line = Data(("# " + String(repeating: "x", count: 97) + "\n").utf8)
        let block = Data(Array(repeating: line, count: 10_000).joined())
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for _ in 0..<100 { try handle.write(contentsOf: block) }
        try handle.close()
      }
    }
  }

  func testCheckConfigRefusesWhatIsNotARegularFileAtOnce() throws {
    let path = directory.appendingPathComponent("agent.yaml").path
    for notAFile in NotAFile.allCases {
      try notAFile.place(at: path)
      let started = Date()
      let result = try run(["check-config", path], seconds: 20)
      XCTAssertEqual(result.status, 1, "\(notAFile)")
      XCTAssertEqual(result.standardError, "netquality: error: \(path): \(notAFile.reason)\n")
      XCTAssertLessThan(Date().timeIntervalSince(started), 10, "\(notAFile)")
    }
    // A STAMP key file is read the same way.
    let keys = directory.appendingPathComponent("stamp.keys").path
    try NotAFile.fifo.place(at: keys)
    let reflect = try run(["reflect", "--listen", "127.0.0.1:0", "--auth-keys", keys], seconds: 20)
    XCTAssertEqual(reflect.status, 1)
    XCTAssertEqual(
      reflect.standardError,
      "netquality: error: cannot read key file \(keys): not a regular file (a FIFO)\n")
  }

  func testReloadOfWhatIsNotARegularFileKeepsTheConfigurationAndStopStillWorks() throws {
    guard getuid() == 0 else { throw XCTSkip("capturing on lo needs root") }
    let port: UInt16 = 19_474
    let path = directory.appendingPathComponent("agent.yaml").path
    let base =
      "interfaces: [lo]\nlisten: \"127.0.0.1:\(port)\"\ntick_interval: 1\nstorage: {enabled: false}\n"
    try Data((base + "max_streams: 1000\n").utf8).write(to: URL(fileURLWithPath: path))
    let agent = try BinaryProcess(
      binary: binary, arguments: ["run", "--config", path], directory: directory)
    defer { agent.stop() }
    XCTAssertTrue(agent.waitForLog("Server started", seconds: 30), agent.standardError)

    /// Sends SIGHUP and waits for the `count`-th line containing `text`.
    func reload(expecting text: String, count: Int) -> Bool {
      kill(agent.process.processIdentifier, SIGHUP)
      let deadline = Date().addingTimeInterval(10)
      while agent.standardError.components(separatedBy: text).count - 1 < count {
        guard Date() < deadline, !agent.waitForExit(seconds: 0.05) else { return false }
      }
      return true
    }
    for (index, notAFile) in NotAFile.allCases.enumerated() {
      try notAFile.place(at: path)
      XCTAssertTrue(
        reload(expecting: "reload kept the old configuration", count: index + 1),
        "\(notAFile): \(agent.standardError)")
      XCTAssertTrue(
        agent.standardError.contains(
          "reload kept the old configuration: \(path): \(notAFile.reason)\""),
        agent.standardError)
    }
    let status = try XCTUnwrap(HTTPGet.json(port: port, path: "/api/v1/status"))
    XCTAssertEqual(configuration(status)["max_streams"] as? Int, 1000, "the old one kept")
    XCTAssertEqual(status["last_reload_successful"] as? Bool, false)

    try? FileManager.default.removeItem(atPath: path)
    try Data((base + "max_streams: 7\n").utf8).write(to: URL(fileURLWithPath: path))
    XCTAssertTrue(reload(expecting: "reloaded \(path)", count: 1), agent.standardError)
    let after = try XCTUnwrap(HTTPGet.json(port: port, path: "/api/v1/status"))
    XCTAssertEqual(configuration(after)["max_streams"] as? Int, 7, "the good file applied")

    // A valid file near the bound takes seconds to load (100,000 groups of four networks,
    // 13.6 MB: 5.8 s in a debug build): SIGTERM during that reload does not wait for it.
    let groups = (0..<100_000).map { index in
      "  - name: group-\(index)\n    addresses: [10.\(index >> 16).\((index >> 8) & 255)."
        + "\(index & 255)/32, \"2001:db8:\(String(index & 0xFFFF, radix: 16))::/48\", "
        + "\"2001:db8:ffff:\(String(index & 0xFFFF, radix: 16))::/64\", 172.16.0.0/12]"
    }
    try Data((base + "peers:\n" + groups.joined(separator: "\n") + "\n").utf8).write(
      to: URL(fileURLWithPath: path))
    kill(agent.process.processIdentifier, SIGHUP)
    Thread.sleep(forTimeInterval: 0.5)
    let stopped = Date()
    kill(agent.process.processIdentifier, SIGTERM)
    XCTAssertTrue(agent.waitForExit(seconds: 5), "SIGTERM stops the agent within 5 s")
    XCTAssertLessThan(Date().timeIntervalSince(stopped), 5)
    XCTAssertEqual(agent.status, 0)
  }
}
