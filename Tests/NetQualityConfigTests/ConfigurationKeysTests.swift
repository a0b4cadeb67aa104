import NetQualityConfig
import NetQualityCore
import XCTest
import Yams

/// The one mapping from the agent's configuration to the engine's, and the one table of what
/// a reload applies.
final class ConfigurationKeysTests: XCTestCase {
  func load(_ yaml: String) throws -> AgentConfiguration {
    try ConfigurationLoader.load(yaml: yaml, file: "test.yaml")
  }

  func testEveryKeyOfTheFileIsInTheTable() throws {
    let changed = try load(
      """
      interfaces: [eth9]
      bpf_filter: "udp port 5004"
      snaplen: 512
      buffer_size_mb: 4
      local_networks: [10.0.0.0/8]
      peers: [{name: sfu, addresses: [192.0.2.0/24]}]
      tick_interval: 1
      max_streams: 10
      timers: {interrupted: 2, disconnected: 5, timeout: 9}
      quality: {min_packets: 3, audio: {bpl: 20}}
      alerts: {builtin: false}
      listen: "127.0.0.1:1"
      web_config_file: /tmp/w
      metrics: {per_stream: true, max_stream_series: 5, max_peer_series: 7, peer_grace_seconds: 1}
      dashboard_file: /tmp/d
      dashboard: {max_peers: 10}
      status_page: {max_peers: 5}
      probes: [{target: "192.0.2.9:862"}]
      reflector: {enabled: true, burst: 9}
      storage_path: /tmp/s
      storage: {enabled: false}
      alertmanager: {url: "http://127.0.0.1:9093"}
      """)
    let names = ConfigurationKeys.changed(from: AgentConfiguration(), to: changed).map(\.name)
    XCTAssertEqual(
      names,
      [
        "interfaces", "bpf_filter", "snaplen", "buffer_size_mb", "local_networks", "peers",
        "tick_interval", "max_streams", "timers.interrupted", "timers.disconnected",
        "timers.timeout", "quality.min_packets", "quality.audio.bpl", "alerts", "listen",
        "web_config_file", "metrics.per_stream", "metrics.max_stream_series",
        "metrics.max_peer_series", "metrics.peer_grace_seconds", "dashboard_file",
        "dashboard.max_peers", "status_page.max_peers", "probes", "reflector.enabled",
        "reflector.burst", "storage_path", "storage.enabled", "alertmanager",
      ])
    XCTAssertEqual(
      ConfigurationKeys.all.filter { $0.effect == .restart }.map(\.name),
      [
        "interfaces", "bpf_filter", "snaplen", "buffer_size_mb", "listen", "telemetry_path",
        "probe_rtt_buckets",
        "reflector.enabled", "reflector.listen", "reflector.auth_key_file", "reflector.allow",
        "reflector.rate_limit", "reflector.burst", "reflector.clock_synchronized", "storage_path",
        "storage.enabled", "storage.raw_retention_hours", "storage.aggregate_retention_days",
        "storage.max_size_mb", "storage.stream_rows", "alertmanager",
      ])
  }

  /// config/netquality.yaml documents every key there is, and nothing else: each of its
  /// entries is a declared key or a section of them, and each declared key is in it.
  func testTheShippedFileListsEveryDeclaredKey() throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/netquality.yaml")
    let root = try XCTUnwrap(try Yams.compose(yaml: String(contentsOf: file, encoding: .utf8)))
    let declared = Set(ConfigurationKeys.all.map(\.name))
    var listed: Set<String> = []
    func walk(_ node: Node, _ path: String) {
      for (key, value) in node.mapping ?? [:] {
        let name = path.isEmpty ? key.string ?? "" : "\(path).\(key.string ?? "")"
        if declared.contains(name) {
          listed.insert(name)
        } else if value.mapping != nil {
          walk(value, name)
        } else {
          XCTFail("\(name) is in config/netquality.yaml but no key is declared for it")
        }
      }
    }
    walk(root, "")
    XCTAssertEqual(declared.subtracting(listed).sorted(), [], "declared but not documented")
  }

  func testTheEngineGetsGroupsLocalNetworksLimitsAndTheGracePeriod() throws {
    let configuration = try load(
      """
      peers:
        - name: sfu
          addresses: [192.0.2.0/24]
      max_streams: 10
      tick_interval: 1
      metrics: {peer_grace_seconds: 42}
      """)
    let interfaceNetworks = [try XCTUnwrap(NetworkPrefix("10.9.0.1/32"))]
    let engine = configuration.engineConfiguration(interfaceNetworks: interfaceNetworks)
    XCTAssertEqual(engine.peerName(try XCTUnwrap(IPAddress("192.0.2.7"))), "sfu")
    XCTAssertEqual(engine.peerName(try XCTUnwrap(IPAddress("198.51.100.7"))), "198.51.100.7")
    XCTAssertEqual(engine.localNetworks, interfaceNetworks, "the interfaces' addresses by default")
    XCTAssertEqual(engine.analyzer.maxStreams, 10)
    XCTAssertEqual(engine.tickIntervalSeconds, 1)
    XCTAssertEqual(engine.forgetAfterTimeoutSeconds, 42)
    let local = try load("local_networks: [172.16.0.0/12]\n")
    XCTAssertEqual(
      local.engineConfiguration(interfaceNetworks: interfaceNetworks).localNetworks.map(
        \.description),
      ["172.16.0.0/12"])
  }

  func testOverridesWinOverTheFile() throws {
    var overrides = ConfigurationOverrides()
    overrides.interfaces = ["lo"]
    overrides.listen = ListenAddress("127.0.0.1:9999").map { [$0] }
    overrides.dashboardFile = "-"
    let result = overrides.applied(to: try load("interfaces: [eth0]\nlisten: \"0.0.0.0:1\"\n"))
    XCTAssertEqual(result.interfaces, ["lo"])
    XCTAssertEqual(result.listenPort, 9999)
    XCTAssertEqual(result.dashboardFile, "-")
  }
}
