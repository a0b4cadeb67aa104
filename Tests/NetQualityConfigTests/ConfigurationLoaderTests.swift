import Foundation
import NetQualityConfig
import NetQualityCore
import XCTest

final class ConfigurationLoaderTests: XCTestCase {
  private func load(_ yaml: String) throws -> AgentConfiguration {
    try ConfigurationLoader.load(yaml: yaml, file: "test.yaml")
  }

  private func issues(_ yaml: String) -> [ConfigurationError.Issue] {
    do {
      _ = try ConfigurationLoader.load(yaml: yaml, file: "test.yaml")
      XCTFail("expected errors")
      return []
    } catch {
      return error.issues
    }
  }

  /// The shipped example documents the defaults: loading it changes nothing.
  func testShippedExampleIsTheDefaults() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("config/netquality.yaml")
    let loaded = try load(try String(contentsOf: url, encoding: .utf8))
    // Every key of the table a reload follows, so none can be missed here.
    XCTAssertEqual(
      ConfigurationKeys.changed(from: AgentConfiguration(), to: loaded).map(\.name), [])
  }

  func testEmptyFileIsTheDefaults() throws {
    XCTAssertEqual(try load("").listenPort, 9470)
    XCTAssertEqual(try load("# nothing\n").bpfFilter, "udp or tcp port 5060 or tcp port 5061")
  }

  /// Issue 39: telephone numbers were in the unauthenticated API and the history by default.
  /// Users are hashed unless the file says otherwise.
  func testUsersAreHashedByDefault() throws {
    let defaults = try load("")
    XCTAssertEqual(defaults.calls.userMasking, "hash")
    XCTAssertEqual(defaults.calls.masking, .hash(key: []))
    XCTAssertEqual(
      defaults.engineConfiguration(interfaceNetworks: []).calls.userMasking.mask(
        "+4930123456"), UserMasking.hash(key: []).mask("+4930123456"))
    XCTAssertNotEqual(defaults.calls.masking.mask("+4930123456"), "+4930123456")
    XCTAssertEqual(try load("calls: {user_masking: \"off\"}").calls.masking, .off)
  }

  func testValuesAreApplied() throws {
    let configuration = try load(
      """
      interfaces: [eth0, eth1]
      local_networks: [10.0.0.0/8, "2001:db8::/32"]
      peers:
        - name: sfu
          addresses: [203.0.113.0/24]
      tick_interval: 1
      timers: {interrupted: 2, disconnected: 6, timeout: 30}
      quality:
        min_packets: 5
        video: {bpl: 8}
      alerts:
        builtin: false
        rules:
          - {name: high_rtt, metric: rtt_ms, op: ">", threshold: 300, for_ticks: 3, severity: critical}
      listen: "[::1]:9999"
      metrics: {per_stream: true}
      dashboard_file: /tmp/dash.txt
      """)
    XCTAssertEqual(configuration.interfaces, ["eth0", "eth1"])
    XCTAssertEqual(configuration.localNetworks.map(\.description), ["10.0.0.0/8", "2001:db8::/32"])
    XCTAssertEqual(configuration.peerGroups.first?.name, "sfu")
    XCTAssertEqual(configuration.engine.tickIntervalSeconds, 1)
    XCTAssertEqual(configuration.engine.timers.disconnectedAfterSeconds, 6)
    XCTAssertEqual(configuration.engine.quality.minimumPackets, 5)
    XCTAssertEqual(configuration.engine.quality.video.lossRobustness, 8)
    XCTAssertEqual(configuration.engine.quality.audio.lossRobustness, 25.1)
    XCTAssertEqual(configuration.engine.alertRules.map(\.name), ["high_rtt"])
    XCTAssertEqual(configuration.engine.alertRules.first?.severity, .critical)
    XCTAssertEqual(configuration.listenHost, "::1")
    XCTAssertEqual(configuration.listenPort, 9999)
    XCTAssertTrue(configuration.perStreamMetrics)
    XCTAssertEqual(configuration.dashboardFile, "/tmp/dash.txt")
  }

  func testEveryErrorIsReportedWithItsKeyAndLine() {
    let found = issues(
      """
      interfaces: eth0
      snaplen: lots
      colour: blue
      timers:
        interrupted: 20
      alerts:
        rules:
          - {name: x, metric: packets_per_fortnight, threshold: 1}
      listen: nowhere
      """)
    XCTAssertEqual(
      found.map(\.description),
      [
        "line 1: interfaces: expected a list",
        "line 2: snaplen: expected a whole number",
        "line 3: colour: unknown key; known keys here: interfaces, bpf_filter, snaplen, buffer_size_mb, local_networks, peers, tick_interval, max_streams, timers, quality, alerts, listen, telemetry_path, web_config_file, metrics, dashboard_file, dashboard, status_page, probes, probe_rtt_buckets, probe_endpoint, reflector, storage_path, storage, alertmanager, calls",
        "line 4: timers: must grow: interrupted < disconnected < timeout",
        "line 8: alerts.rules[0].metric: unknown metric 'packets_per_fortnight'; metrics are rx_quality, tx_quality, rx_loss_ratio, tx_loss_ratio, rx_jitter_ms, tx_jitter_ms, rtt_ms, rx_mos, tx_mos, state, rx_video_freezes, call_failure_ratio, call_5xx_ratio",
        "line 9: listen: 'nowhere': expected HOST:PORT with an IP address or a host name (e.g. 127.0.0.1:9470, [::1]:9470, :9470, localhost:9470)",
      ])
  }

  func testInvalidYAMLSaysWhere() {
    let found = issues("snaplen: 3\ninterfaces: [eth0\nbpf_filter: udp\n")
    XCTAssertEqual(found.count, 1)
    XCTAssertTrue(found[0].message.hasPrefix("invalid YAML"), found[0].message)
    XCTAssertNotNil(found[0].line)
  }

  func testDuplicateKeysSayLineAndKey() {
    let found = issues("snaplen: 100\nquality:\n  min_packets: 5\n  min_packets: 6\n")
    XCTAssertEqual(
      found.map(\.description),
      [
        "line 4: quality.min_packets: 'min_packets' appears more than once in the same mapping "
          + "(first on line 3)"
      ])
  }

  /// A duplicated key no longer hides the rest of the file: each later entry (with what is
  /// nested under it) is reported at its own line and set aside, and every other issue found.
  func testDuplicateKeysDoNotStopTheOtherIssues() {
    let found = issues(
      """
      timers:
        timeout: 60
        timeout:
          nested: 1
        interrupted: soon
      snaplen: 10
      snaplen: 20
      colour: blue

      """)
    XCTAssertEqual(
      found.prefix(4).map(\.description),
      [
        "line 3: timers.timeout: 'timeout' appears more than once in the same mapping "
          + "(first on line 2)",
        "line 5: timers.interrupted: expected a number",
        "line 6: snaplen: 10 is out of range 64...262144",
        "line 7: snaplen: 'snaplen' appears more than once in the same mapping (first on line 6)",
      ])
    XCTAssertEqual(found.count, 5)
    XCTAssertTrue(found[4].description.hasPrefix("line 8: colour: unknown key"), "\(found)")
  }

  func testReaderAndComposerErrorsSayLineAndKey() {
    XCTAssertEqual(
      issues("snaplen: 100\nbpf_filter: \"udp\u{1}\"\n").map(\.description),
      ["line 2: bpf_filter: invalid YAML: control characters are not allowed (U+0001)"])
    XCTAssertEqual(
      issues("snaplen: 100\ntimers:\n  timeout: *nowhere\n").map(\.description),
      ["line 3: timers.timeout: invalid YAML: found undefined alias"])
  }

  /// A host name is resolved (HostNameTests; `localhost` only, no DNS query); what is neither
  /// an address nor a name is refused.
  func testAnAddressOrAHostNameIsRequired() throws {
    XCTAssertEqual(try load("listen: localhost:9470\n").listenHost, "127.0.0.1")
    XCTAssertEqual(issues("listen: \"bad_name:80\"\n").map(\.key), ["listen"])
    XCTAssertEqual(try load("listen: \"[::1]:9471\"\n").listenHost, "::1")
    XCTAssertEqual(try load("listen: \":9471\"\n").listenHost, "0.0.0.0")
    XCTAssertEqual(try load("listen: \"10.1.2.3:80\"\n").listenHost, "10.1.2.3")
  }

  func testAFileThatIsNotUTF8SaysWhichLine() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).yaml")
    try Data([0x61, 0x3A, 0x20, 0x31, 0x0A, 0xFF, 0xFE, 0x3A, 0x0A]).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    do {
      _ = try ConfigurationLoader.load(path: url.path)
      XCTFail("expected an error")
    } catch {
      XCTAssertEqual(error.issues.map(\.description), ["line 2: not UTF-8 text"])
    }
    do {
      _ = try ConfigurationLoader.load(path: "/nonexistent/netquality.yaml")
      XCTFail("expected an error")
    } catch {
      XCTAssertEqual(
        error.issues.map(\.description), ["cannot read: No such file or directory"])
    }
  }

  func testPeerGroupsAreBounded() throws {
    // The bound is checked before the groups are read, so bare items stand in for them.
    let over = AgentConfiguration.maximumPeerGroups + 1
    let yaml =
      "tick_interval: 2\npeers: [" + Array(repeating: "0", count: over).joined(separator: ",")
      + "]\n"
    XCTAssertEqual(
      issues(yaml).map(\.description),
      ["line 2: peers: 100001 peer groups; at most 100000 (a group can hold many networks)"])
    let groups = (0..<3).map { "  - {name: g\($0), addresses: [10.0.\($0).0/24]}" }
    XCTAssertEqual(
      try load("peers:\n" + groups.joined(separator: "\n") + "\n").peerGroups.map(\.name),
      ["g0", "g1", "g2"])
  }

  func testDashboardSectionDefaultsAndValues() throws {
    let defaults = try load("dashboard_file: /tmp/d\n").dashboard
    XCTAssertEqual(defaults.maxPeers, 50)
    XCTAssertEqual(defaults.maxSizeMegabytes, 10)
    XCTAssertEqual(defaults.maxSizeBytes, 10_485_760)
    XCTAssertEqual(defaults.keep, 3)
    let set = try load("dashboard: {max_peers: 200, max_size_mb: 0, keep: 0}\n").dashboard
    XCTAssertEqual(set.maxPeers, 200)
    XCTAssertEqual(set.maxSizeMegabytes, 0, "0: never rotate")
    XCTAssertEqual(set.maxSizeBytes, 0)
    XCTAssertEqual(set.keep, 0)
  }

  func testDashboardSectionRefusesBadValuesOneLineEach() {
    let found = issues(
      """
      dashboard:
        max_peers: 0
        max_size_mb: -1
        keep: 101
        rows: 5
      """)
    XCTAssertEqual(
      found.map(\.description),
      [
        "line 2: dashboard.max_peers: 0 is out of range 1...100000",
        "line 3: dashboard.max_size_mb: -1 is out of range 0...1048576",
        "line 4: dashboard.keep: 101 is out of range 0...100",
        "line 5: dashboard.rows: unknown key; known keys here: max_peers, max_size_mb, keep",
      ])
    XCTAssertEqual(
      issues("dashboard: {max_peers: many}\n").map(\.description),
      ["line 1: dashboard.max_peers: expected a whole number"])
    XCTAssertEqual(
      issues("dashboard: 10\n").map(\.description),
      ["line 1: dashboard: expected a mapping of keys to values"])
  }

  func testWrongTypesAndRanges() {
    let found = issues(
      """
      buffer_size_mb: 0
      local_networks: [10.0.0.0/99]
      quality:
        rating_floors: [50, 60, 70, 80]
      metrics:
        per_stream: maybe
      """)
    XCTAssertEqual(
      found.map(\.key),
      ["buffer_size_mb", "local_networks[0]", "quality.rating_floors", "metrics.per_stream"])
  }
}
