import Foundation
import XCTest

/// The `netquality` binary as a user meets it: exit codes, one-line errors, output formats.
final class CommandLineTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  /// The products folder holds both the test runner and the binary (NETQUALITY_BINARY
  /// overrides).
  var binary: URL {
    if let override = ProcessInfo.processInfo.environment["NETQUALITY_BINARY"] {
      return URL(fileURLWithPath: override)
    }
    let runner = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
      .resolvingSymlinksInPath()
    return runner.deletingLastPathComponent().appendingPathComponent("netquality")
  }

  struct Run {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  /// Runs the binary to its end, for at most `seconds` (then it is stopped and the test
  /// fails); `input` names a file given as its standard input.
  func run(_ arguments: [String], input: String? = nil, seconds: Double = 60) throws -> Run {
    let process = try BinaryProcess(
      binary: binary, arguments: arguments, directory: directory,
      input: input.map { URL(fileURLWithPath: $0) })
    if !process.waitForExit(seconds: seconds) {
      let signal = process.stop()
      XCTFail(
        "\(process.commandLine) did not finish within \(seconds) s (stopped by signal \(signal))")
    }
    return Run(
      status: process.status, standardOutput: process.standardOutput,
      standardError: process.standardError)
  }

  func testMissingFileIsOneLineAndNonZero() throws {
    let result = try run(["analyze", directory.appendingPathComponent("absent.pcap").path])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
    XCTAssertTrue(
      result.standardError.hasPrefix("netquality: error: cannot read "), result.standardError)
    XCTAssertEqual(result.standardOutput, "")
  }

  func testTextFileIsOneLineAndNonZero() throws {
    let path = directory.appendingPathComponent("readme.txt")
    try Data("hello\n".utf8).write(to: path)
    let result = try run(["analyze", path.path])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
  }

  func testBadLocalPrefixIsAUsageError() throws {
    let result = try run(["analyze", "x.pcap", "--local", "10.0.0.0/99"])
    XCTAssertEqual(result.status, 2)
    XCTAssertTrue(result.standardError.contains("--local 10.0.0.0/99"), result.standardError)
  }

  func testGeneratedCaptureAnalysesAsGenerated() throws {
    let path = directory.appendingPathComponent("sample.pcap").path
    let generate = try run([
      "generate", "-o", path, "--streams", "4", "--packets", "4000", "--loss", "5", "--seed", "7",
    ])
    XCTAssertEqual(generate.status, 0, generate.standardError)
    let result = try run(["analyze", path, "--format", "json", "--local", "10.10.0.0/16"])
    XCTAssertEqual(result.status, 0, result.standardError)
    let document = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let capture = try XCTUnwrap(document["capture"] as? [String: Any])
    for key in [
      "packets", "udp_packets", "non_rtp_udp", "rtcp_packets", "decode_errors", "truncated",
    ] {
      XCTAssertNotNil(capture[key], key)
    }
    let streams = try XCTUnwrap(document["streams"] as? [[String: Any]])
    XCTAssertEqual(streams.count, 4)
    let required = [
      "src", "src_port", "dst", "dst_port", "ssrc", "payload_types", "packets", "lost",
      "duplicates",
      "reordered", "first_time", "last_time", "max_jitter_ms", "mean_jitter_ms", "max_delta_ms",
      "clock_rate", "clock_rate_source", "rtt_ms",
    ]
    for stream in streams {
      for key in required { XCTAssertTrue(stream.keys.contains(key), "missing \(key)") }
      XCTAssertTrue((stream["ssrc"] as? String)?.hasPrefix("0x5EED") ?? false)
      XCTAssertEqual(stream["clock_rate"] as? Int, 8000)
      XCTAssertEqual(stream["clock_rate_source"] as? String, "static")
      // The generator's receivers answer each SR 40 ms later having held it 25 ms.
      XCTAssertEqual(stream["rtt_ms"] as? Double ?? 0, 15, accuracy: 0.05)
      XCTAssertNotNil(["tx", "rx"].firstIndex(of: stream["direction"] as? String ?? ""))
    }
    // 5 % loss drawn at random: the total lost over 4000 expected packets is near 200.
    let lost = streams.compactMap { $0["lost"] as? Int }.reduce(0, +)
    let packets = streams.compactMap { $0["packets"] as? Int }.reduce(0, +)
    // 4000 sent; a loss after a stream's last received packet is invisible to sequence numbers.
    XCTAssertTrue((3990...4000).contains(lost + packets), "lost \(lost) + received \(packets)")
    XCTAssertTrue((150...250).contains(lost), "lost \(lost)")
  }

  func testTableIsTheDefault() throws {
    let path = directory.appendingPathComponent("t.pcap").path
    XCTAssertEqual(
      try run(["generate", "-o", path, "--streams", "2", "--packets", "100"]).status, 0)
    let result = try run(["analyze", path])
    XCTAssertEqual(result.status, 0)
    let lines = result.standardOutput.split(separator: "\n")
    XCTAssertTrue(lines[0].hasSuffix("2 RTP stream(s)"))
    XCTAssertTrue(lines[1].hasPrefix("SOURCE"))
    XCTAssertTrue(lines[2].contains("0x5EED0000"))
    XCTAssertTrue(lines.last?.hasPrefix("capture: 100 packets") ?? false)
  }

  /// `analyze -` reads the capture from a pipe (tcpdump -w - | netquality analyze -), giving
  /// what the file gives.
  func testStandardInputAnalysesLikeTheFile() throws {
    let path = directory.appendingPathComponent("s.pcap").path
    XCTAssertEqual(
      try run(["generate", "-o", path, "--streams", "3", "--packets", "600", "--loss", "3"])
        .status, 0)
    let fromFile = try run(["analyze", path, "--format", "json"])
    let fromPipe = try run(["analyze", "-", "--format", "json"], input: path)
    XCTAssertEqual(fromPipe.status, 0, fromPipe.standardError)
    // The documents differ only in the file name they echo.
    func document(_ run: Run) throws -> NSDictionary {
      var object = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
      object["file"] = nil
      return object as NSDictionary
    }
    XCTAssertEqual(try document(fromPipe), try document(fromFile))
    XCTAssertEqual((try document(fromPipe)["streams"] as? [Any])?.count, 3)
    // A second pass (the local-side guess of --timeline) cannot re-read a pipe: said, not hung.
    let timeline = try run(["analyze", "-", "--timeline"], input: path)
    XCTAssertEqual(timeline.status, 2)
    XCTAssertTrue(timeline.standardError.contains("needs --local"), timeline.standardError)
    let withLocal = try run(["analyze", "-", "--timeline", "--local", "10.10.0.0/16"], input: path)
    XCTAssertEqual(withLocal.status, 0, withLocal.standardError)
    XCTAssertTrue(withLocal.standardOutput.contains("connected"), withLocal.standardOutput)
  }
}

extension CommandLineTests {
  func testTimelineWritesTickAndEventLines() throws {
    let path = directory.appendingPathComponent("timeline.pcap").path
    XCTAssertEqual(
      try run(["generate", "-o", path, "--streams", "2", "--packets", "1000", "--loss", "10"])
        .status, 0)
    let result = try run([
      "analyze", path, "--timeline", "--format", "jsonl", "--local", "10.10.0.0/16",
    ])
    XCTAssertEqual(result.status, 0, result.standardError)
    let lines = try result.standardOutput.split(separator: "\n").map {
      try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let ticks = lines.filter { $0["type"] as? String == "tick" }
    let events = lines.filter { $0["type"] as? String == "event" }
    // 500 packets a stream at 50/s from an even second: ticks at 2, 4, 6, 8 and the closing 10.
    XCTAssertEqual(ticks.count, 5)
    XCTAssertEqual(events.first?["kind"] as? String, "connected")
    // Random 10 % loss may dip into bad for a while: any other event is an alert about it.
    XCTAssertTrue(
      events.dropFirst().allSatisfy { ($0["kind"] as? String)?.hasPrefix("alert_") ?? false })
    let host = try XCTUnwrap(ticks.last?["host"] as? [String: Any])
    XCTAssertNotNil(host["tx_quality"] as? Int)
    let peer = try XCTUnwrap((ticks[3]["peers"] as? [[String: Any]])?.first)
    XCTAssertEqual(peer["peer"] as? String, "10.20.0.1")
    XCTAssertEqual(peer["state"] as? String, "connected")
    for key in [
      "tx_quality", "rx_quality", "rx_loss_ratio", "rx_jitter_ms", "tx_loss_ratio", "rtt_ms", "mos",
    ] {
      XCTAssertTrue(peer.keys.contains(key), key)
    }
    // 10 % loss drawn at random: poor by the documented model (R about 65), rarely good or bad.
    XCTAssertTrue(
      [2, 3, 4].contains(peer["rx_quality"] as? Int ?? 0), "\(peer["rx_quality"] ?? "nil")")
    let explained = try XCTUnwrap(peer["rx"] as? [String: Any])
    XCTAssertNotNil(explained["r_factor"] as? Double)
    XCTAssertEqual(explained["limited_by"] as? String, "loss_delay")
  }

  func testTimelineTableAndFormatErrors() throws {
    let path = directory.appendingPathComponent("t.pcap").path
    XCTAssertEqual(
      try run(["generate", "-o", path, "--streams", "2", "--packets", "400"]).status, 0)
    let table = try run(["analyze", path, "--timeline"])
    XCTAssertEqual(table.status, 0)
    XCTAssertTrue(table.standardOutput.hasPrefix("TIME "))
    XCTAssertTrue(
      table.standardOutput.contains("10.20.0.1        connected    excellent"), table.standardOutput
    )
    // Without --local the busiest address is taken as local, and said so.
    XCTAssertTrue(table.standardError.contains("taking 10.10.0.1 as local"), table.standardError)
    XCTAssertEqual(try run(["analyze", path, "--timeline", "--format", "json"]).status, 2)
    XCTAssertEqual(try run(["analyze", path, "--format", "jsonl"]).status, 2)
  }
}

/// `netquality run` and `check-config` refusing bad input: one line each, non-zero exit.
extension CommandLineTests {
  private var isRoot: Bool { getuid() == 0 }

  func testRunWithInvalidConfigurationsReportsEachLine() throws {
    let bad = directory.appendingPathComponent("bad.yaml")
    try Data("snaplen: many\ncolour: blue\nlisten: {port: 1}\n".utf8).write(to: bad)
    for command in [["run", "--config", bad.path], ["check-config", bad.path]] {
      let result = try run(command)
      XCTAssertEqual(result.status, 1, command.joined(separator: " "))
      let lines = result.standardError.split(separator: "\n")
      XCTAssertEqual(lines.count, 3, result.standardError)
      XCTAssertTrue(
        lines[0].hasSuffix("bad.yaml: line 1: snaplen: expected a whole number"), String(lines[0]))
      XCTAssertTrue(lines[1].contains("line 2: colour: unknown key"), String(lines[1]))
      XCTAssertTrue(lines[2].contains("line 3: listen: expected a string"), String(lines[2]))
    }
    let syntax = directory.appendingPathComponent("syntax.yaml")
    try Data("interfaces: [eth0\n".utf8).write(to: syntax)
    let result = try run(["check-config", syntax.path])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.standardError.contains("invalid YAML"), result.standardError)
  }

  /// `check-config FILE --prometheus-rules` on the shipped example (the built-in rules) prints
  /// the shipped forwarding rules; a rule of the file's own is forwarded too.
  func testCheckConfigPrintsThePrometheusRulesOfTheConfiguration() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let shipped = try String(
      contentsOf: root.appendingPathComponent("config/rules/netquality-agent-alerts.yml"),
      encoding: .utf8)
    let example = root.appendingPathComponent("config/netquality.yaml").path
    var result = try run(["check-config", example, "--prometheus-rules"])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertEqual(result.standardOutput, shipped)
    let own = directory.appendingPathComponent("own.yaml")
    try Data(
      """
      alerts:
        runbook_url: "https://wiki.example.net/runbook"
        rules:
          - {name: high_loss, metric: rx_loss_ratio, op: ">", threshold: 0.05, clear_threshold: 0.02}

      """.utf8
    ).write(to: own)
    result = try run(["check-config", own.path, "--prometheus-rules"])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(
      result.standardOutput.contains(
        """
              - alert: high_loss
                expr: 'netquality_alerts_firing{alertname="high_loss"} == 1'
        """), result.standardOutput)
    XCTAssertTrue(
      result.standardOutput.contains(
        "runbook_url: 'https://wiki.example.net/runbook#configured-rules'"), result.standardOutput)
    // An invalid file prints no rules: its errors, and exit 1.
    try Data("alerts: {runbook_url: docs/runbook.md}\n".utf8).write(to: own)
    result = try run(["check-config", own.path, "--prometheus-rules"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.standardOutput, "")
    XCTAssertTrue(result.standardError.contains("alerts.runbook_url"), result.standardError)
  }

  func testRunOnAMissingInterfaceListsTheInterfaces() throws {
    let result = try run(["run", "--interface", "nq-no-such0", "--listen", "127.0.0.1:19479"])
    XCTAssertEqual(result.status, 1)
    let line = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
    XCTAssertTrue(
      line.hasPrefix(
        "netquality: error: cannot capture on nq-no-such0: no such device; interfaces are: "), line)
    XCTAssertTrue(line.contains("lo"), line)
  }

  func testRunOnAPortInUseSaysSo() throws {
    guard isRoot else { throw XCTSkip("capturing on lo needs root") }
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(19_478).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    XCTAssertEqual(bound, 0)
    XCTAssertEqual(listen(listener, 1), 0)
    let result = try run(["run", "--interface", "lo", "--listen", "127.0.0.1:19478"])
    XCTAssertEqual(result.status, 1)
    let line = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
    XCTAssertEqual(
      line, "netquality: error: cannot listen on 127.0.0.1:19478: address already in use")
  }

  func testRunWithoutCapturePermissionSaysWhatToDo() throws {
    guard isRoot else { throw XCTSkip("needs root to drop to an unprivileged user") }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
      throw XCTSkip("setpriv (util-linux) not found")
    }
    let process = try BinaryProcess(
      binary: binary,
      arguments: ["run", "--interface", "lo", "--listen", "127.0.0.1:19477"],
      directory: directory,
      launcher: [
        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
      ])
    XCTAssertTrue(process.waitForExit(seconds: 60), "\(process.commandLine) did not exit")
    XCTAssertEqual(process.status, 1)
    let line = process.standardError.split(separator: "\n").last.map(String.init) ?? ""
    XCTAssertTrue(
      line.hasPrefix("netquality: error: no permission to capture on lo: run as root"), line)
  }
}

/// The agent as a process: SIGHUP reloads, an invalid file keeps the old configuration and says
/// why, SIGTERM stops it cleanly.
extension CommandLineTests {
  func testSIGHUPReloadKeepsTheOldConfigurationWhenTheNewOneIsInvalid() throws {
    guard getuid() == 0 else { throw XCTSkip("capturing on lo needs root") }
    let config = directory.appendingPathComponent("agent.yaml")
    try Data("interfaces: [lo]\nlisten: \"127.0.0.1:19475\"\ntick_interval: 1\n".utf8).write(
      to: config)
    let process = try BinaryProcess(
      binary: binary, arguments: ["run", "--config", config.path], directory: directory)
    defer { process.stop() }
    XCTAssertTrue(process.waitForLog("Server started", seconds: 20), process.standardError)
    try Data("interfaces: [lo]\ntick_interval: soon\n".utf8).write(to: config)
    kill(process.process.processIdentifier, SIGHUP)
    XCTAssertTrue(
      process.waitForLog("reload kept the old configuration", seconds: 10), process.standardError)
    XCTAssertTrue(
      process.standardError.contains("line 2: tick_interval: expected a number"),
      process.standardError)
    try Data(
      "interfaces: [lo]\nlisten: \"127.0.0.1:19475\"\ntick_interval: 1\ntimers: {interrupted: 3, disconnected: 9, timeout: 40}\n"
        .utf8
    ).write(to: config)
    kill(process.process.processIdentifier, SIGHUP)
    XCTAssertTrue(process.waitForLog("reloaded \(config.path)", seconds: 10), process.standardError)
    XCTAssertEqual(process.stop(), SIGINT, "SIGINT stops the agent")
    XCTAssertTrue(process.standardError.contains("captures closed"), process.standardError)
    XCTAssertEqual(process.status, 0)
  }
}
