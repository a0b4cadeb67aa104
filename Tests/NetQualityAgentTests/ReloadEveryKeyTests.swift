import Foundation
import Logging
import NetQualityConfig
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// Issue 30: every declared key, changed in the file and reloaded, is either in effect
/// everywhere (a live key) or kept at its started value everywhere and listed as waiting for a
/// restart (a restart key) — the engine, the analyzer, the metrics settings, the dashboard and
/// the web configuration agree with the configuration in effect, and the engine never takes a
/// value the threads and sockets opened at start do not have (`reflector` did). Issue 26:
/// `probes` is live, and the probe thread's targets and the engine's (names, the capture's
/// probe filter) are the same after every reload, and again after a removed target retires.
final class ReloadEveryKeyTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("nq-reload-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data("basic_auth_users: {}\n".utf8).write(to: directory.appendingPathComponent("web.yml"))
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  /// A value of each key other than its default, as a line (or flow mapping) of YAML. A key
  /// declared without one here fails the test: a new key gets a sample with its declaration.
  func samples() -> [String: String] {
    let path = directory.path
    return [
      "interfaces": "interfaces: [lo]",
      "bpf_filter": "bpf_filter: \"udp port 9\"",
      "snaplen": "snaplen: 512",
      "buffer_size_mb": "buffer_size_mb: 4",
      "local_networks": "local_networks: [10.0.0.0/8]",
      "peers": "peers: [{name: g, addresses: [192.0.2.0/24]}]",
      "tick_interval": "tick_interval: 1",
      "max_streams": "max_streams: 10",
      "timers.interrupted": "timers: {interrupted: 3}",
      "timers.disconnected": "timers: {disconnected: 20}",
      "timers.timeout": "timers: {timeout: 90}",
      "quality.rating_floors": "quality: {rating_floors: [81, 71, 61, 51]}",
      "quality.jitter_ceilings_ms": "quality: {jitter_ceilings_ms: [31, 51, 101, 151]}",
      "quality.min_packets": "quality: {min_packets: 5}",
      "quality.scoring_windows": "quality: {scoring_windows: 2}",
      "quality.worsen_after_ticks": "quality: {worsen_after_ticks: 2}",
      "quality.worsen_one_level_after_ticks": "quality: {worsen_one_level_after_ticks: 4}",
      "quality.improve_after_ticks": "quality: {improve_after_ticks: 4}",
      "quality.improve_one_level_after_ticks": "quality: {improve_one_level_after_ticks: 20}",
      "quality.feedback_stale_seconds": "quality: {feedback_stale_seconds: 20}",
      "quality.audio.ie": "quality: {audio: {ie: 5}}",
      "quality.audio.bpl": "quality: {audio: {bpl: 20}}",
      "quality.audio.codec_delay_ms": "quality: {audio: {codec_delay_ms: 30}}",
      "quality.video.ie": "quality: {video: {ie: 5}}",
      "quality.video.bpl": "quality: {video: {bpl: 8}}",
      "quality.video.codec_delay_ms": "quality: {video: {codec_delay_ms: 40}}",
      "alerts": "alerts: {builtin: false}",
      "listen": "listen: \"127.0.0.1:19998\"",
      "telemetry_path": "telemetry_path: /other/metrics",
      "web_config_file": "web_config_file: \(path)/web.yml",
      "metrics.per_stream": "metrics: {per_stream: true}",
      "metrics.max_stream_series": "metrics: {max_stream_series: 5}",
      "metrics.max_peer_series": "metrics: {max_peer_series: 7}",
      "metrics.peer_grace_seconds": "metrics: {peer_grace_seconds: 1}",
      "dashboard_file": "dashboard_file: \(path)/dashboard.txt",
      "dashboard.max_peers": "dashboard: {max_peers: 10}",
      "dashboard.max_size_mb": "dashboard: {max_size_mb: 5}",
      "dashboard.keep": "dashboard: {keep: 1}",
      "status_page.max_peers": "status_page: {max_peers: 5}",
      "status_page.chart_seconds": "status_page: {chart_seconds: 600}",
      "probes": "probes: [{target: \"127.0.0.62:19862\", name: pb, timeout: 0.2}]",
      "probe_rtt_buckets": "probe_rtt_buckets: [0.001, 0.002]",
      "probe_endpoint.allow": "probe_endpoint: {allow: [\"192.0.2.0/24:862\"]}",
      "reflector.enabled": "reflector: {enabled: true}",
      "reflector.listen": "reflector: {listen: \"127.0.0.1:8620\"}",
      "reflector.auth_key_file": "reflector: {auth_key_file: \(path)/key}",
      "reflector.allow": "reflector: {allow: [10.0.0.0/8]}",
      "reflector.rate_limit": "reflector: {rate_limit: 10}",
      "reflector.burst": "reflector: {burst: 9}",
      "reflector.clock_synchronized": "reflector: {clock_synchronized: true}",
      "storage_path": "storage_path: \(path)/other.db",
      "storage.enabled": "storage: {enabled: false}",
      "storage.raw_retention_hours": "storage: {raw_retention_hours: 1}",
      "storage.aggregate_retention_days": "storage: {aggregate_retention_days: 1}",
      "storage.max_size_mb": "storage: {max_size_mb: 10}",
      "storage.stream_rows": "storage: {stream_rows: true}",
      "alertmanager": "alertmanager: {url: \"http://127.0.0.1:9093\"}",
      "calls.max_tracked": "calls: {max_tracked: 10}",
      "calls.user_masking": "calls: {user_masking: last_digits}",
      "calls.user_hash_key": "calls: {user_hash_key: k}",
      "calls.user_last_digits": "calls: {user_last_digits: 2}",
      "calls.failure_window": "calls: {failure_window: 60}",
      "calls.failure_min_calls": "calls: {failure_min_calls: 5}",
      "calls.held_timeout": "calls: {held_timeout: 600}",
      "calls.max_silent_per_source": "calls: {max_silent_per_source: 5}",
      "calls.silent_records_per_source_per_minute":
        "calls: {silent_records_per_source_per_minute: 3}",
      "calls.silent_records_per_minute": "calls: {silent_records_per_minute: 7}",
    ]
  }

  /// What the agent starts with: a probe target named `pa` (the case that broke) and the
  /// history off. The targets are loopback ports where nothing answers: the probe thread runs
  /// for real and its probes settle lost after 0.2 s.
  var base: String {
    "listen: \"127.0.0.1:19997\"\nstorage_path: \"\"\n"
      + "probes: [{target: \"127.0.0.61:19861\", name: pa, timeout: 0.2}]\n"
  }

  let pa = Endpoint(address: IPAddress(ipv4: 127, 0, 0, 61), port: 19861)
  let pb = Endpoint(address: IPAddress(ipv4: 127, 0, 0, 62), port: 19862)

  func testEveryDeclaredKeyIsAppliedOrKeptEverywhere() throws {
    let samples = samples()
    let file = directory.appendingPathComponent("netquality.yaml")
    try Data(base.utf8).write(to: file)
    let started = try ConfigurationLoader.load(path: file.path)
    let interfaceNetworks = [try XCTUnwrap(NetworkPrefix("127.0.0.1/32"))]
    let state = AgentState(
      engine: Engine(
        configuration: started.engineConfiguration(interfaceNetworks: interfaceNetworks)))
    let probes = ProbeService(plan: .init(), state: state, logger: Logger(label: "test"))
    let live = try LiveConfiguration(
      configuration: started, path: file.path, overrides: ConfigurationOverrides(),
      interfaceNetworks: interfaceNetworks, state: state, probes: probes,
      logger: Logger(label: "test"))
    let thread = Task { try await probes.run() }
    defer { thread.cancel() }
    assertProbesAgree(probes, state, interfaceNetworks, active: [pa], "start")
    for key in ConfigurationKeys.all {
      guard let sample = samples[key.name] else {
        XCTFail("\(key.name): declared without a sample in ReloadEveryKeyTests")
        continue
      }
      // The sample replaces the base's own line for the same key.
      let own = sample.prefix { $0 != ":" } + ":"
      let kept = base.split(separator: "\n").filter { !$0.hasPrefix(own) }
      try Data((kept.joined(separator: "\n") + "\n" + sample + "\n").utf8).write(to: file)
      XCTAssertTrue(live.reload(), "\(key.name): the reload was refused")
      let current = live.current
      let pending = state.read(\.status.restartPending)
      switch key.effect {
      case .live:
        XCTAssertTrue(key.differs(current, started), "\(key.name): not in effect")
        XCTAssertFalse(pending.contains(key.name), "\(key.name): listed as pending")
      case .restart:
        XCTAssertFalse(key.differs(current, started), "\(key.name): taken although restart-only")
        XCTAssertEqual(pending, [key.name], "\(key.name): not listed as pending alone")
      }
      assertComponentsAgree(
        with: current, probes.targets.withLock { $0.engineTargets }, state: state,
        interfaceNetworks, key.name)
      assertProbesAgree(
        probes, state, interfaceNetworks, active: key.name == "probes" ? [pb] : [pa], key.name)
      if key.name == "probes" {
        // `pa` stopped sending and retires once its probes in flight have settled (0.2 s);
        // until then the engine still names and filters it, and after it neither.
        try waitUntil("pa retired") { probes.targets.snapshot.retiring.isEmpty }
        assertProbesAgree(probes, state, interfaceNetworks, active: [pb], "probes, retired")
        let engine = state.scorer.withLock { $0.configuration }
        XCTAssertEqual(engine.peerName(pa.address), pa.address.description)
        XCTAssertEqual(engine.peerName(pb.address), "pb")
      }
      // The probe target keeps its name and stays out of the passive view whatever the
      // reload: the probe thread still sends to it.
      let engine = state.scorer.withLock { $0.configuration }
      if key.name != "probes" {
        XCTAssertEqual(engine.peerName(pa.address), "pa", "\(key.name): probe name")
      }
      // Back to the start.
      try Data(base.utf8).write(to: file)
      XCTAssertTrue(live.reload())
      if key.name == "probes" {
        try waitUntil("pb retired") { probes.targets.snapshot.retiring.isEmpty }
      }
      assertProbesAgree(probes, state, interfaceNetworks, active: [pa], "\(key.name): undo")
      XCTAssertEqual(state.read(\.status.restartPending), [], "\(key.name): pending after undo")
      XCTAssertTrue(
        ConfigurationKeys.changed(from: started, to: live.current).isEmpty,
        "\(key.name): not back to the start")
    }
  }

  /// The probe thread's targets are the configured ones (`active`, plus any retiring), and
  /// the engine and the analyzer know exactly the targets the thread runs: their names and
  /// the capture's probe filter. Read under the targets' lock, as the thread changes them.
  func assertProbesAgree(
    _ probes: ProbeService, _ state: AgentState, _ interfaceNetworks: [NetworkPrefix],
    active: [Endpoint], _ name: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    probes.targets.withLock { set in
      let running = set.engineTargets
      XCTAssertEqual(
        set.running.filter { $0.retiringUntil == nil }.map(\.settings.target), active,
        "\(name): targets sent to", file: file, line: line)
      // The configuration in effect, with the targets the thread runs.
      var probed = state.read(\.status.configuration)
      probed.probes = running
      let expected = probed.engineConfiguration(interfaceNetworks: interfaceNetworks)
      let engine = state.scorer.withLock { $0.configuration }
      let analyzer = state.capture.withLock { $0.configuration }
      XCTAssertEqual(
        analyzer.probeTraffic.endpoints, expected.analyzer.probeTraffic.endpoints,
        "\(name): the capture's probe filter", file: file, line: line)
      for target in running {
        XCTAssertEqual(
          engine.peerName(target.target.address), target.name ?? target.target.address.description,
          "\(name): the engine's name of \(target.target)", file: file, line: line)
      }
    }
  }

  func waitUntil(_ what: String, seconds: Double = 5, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      guard Date() < deadline else {
        XCTFail("timed out after \(seconds) s waiting for \(what)")
        return
      }
      Thread.sleep(forTimeInterval: 0.02)
    }
  }

  /// The engine, the analyzer, the metrics settings and the dashboard run what is in effect.
  /// `probed`: the targets the probe thread runs (a removed one until it retires), which the
  /// engine names.
  func assertComponentsAgree(
    with current: AgentConfiguration, _ probed: [ProbeTargetSettings], state: AgentState,
    _ interfaceNetworks: [NetworkPrefix], _ name: String
  ) {
    var running = current
    running.probes = probed
    let expected = running.engineConfiguration(interfaceNetworks: interfaceNetworks)
    let engine = state.scorer.withLock { $0.configuration }
    XCTAssertEqual(engine.tickIntervalSeconds, expected.tickIntervalSeconds, name)
    XCTAssertEqual(engine.localNetworks, expected.localNetworks, name)
    XCTAssertEqual(engine.quality, expected.quality, name)
    XCTAssertEqual(engine.timers, expected.timers, name)
    XCTAssertEqual(engine.alertRules, expected.alertRules, name)
    XCTAssertEqual(engine.forgetAfterTimeoutSeconds, expected.forgetAfterTimeoutSeconds, name)
    XCTAssertEqual(engine.calls, expected.calls, name)
    XCTAssertEqual(engine.peerGroups.map(\.name), expected.peerGroups.map(\.name), name)
    XCTAssertEqual(engine.peerGroups.map(\.networks), expected.peerGroups.map(\.networks), name)
    let analyzer = state.capture.withLock { $0.configuration }
    XCTAssertEqual(analyzer.maxStreams, expected.analyzer.maxStreams, name)
    XCTAssertEqual(analyzer.localNetworks, expected.localNetworks, name)
    let metrics = state.read(\.metrics)
    XCTAssertEqual(metrics.perStream, current.perStreamMetrics, name)
    XCTAssertEqual(metrics.maxStreamSeries, current.maxStreamSeries, name)
    XCTAssertEqual(metrics.maxPeerSeries, current.maxPeerSeries, name)
    XCTAssertEqual(metrics.pinnedPeers, Set(current.peerGroups.map(\.name)), name)
    XCTAssertEqual(metrics.alertRules.map(\.name), expected.alertRules.map(\.name), name)
    let dashboard = state.dashboard.withLock { $0?.path }
    XCTAssertEqual(dashboard ?? "", current.dashboardFile, name)
    let status = state.read(\.status.configuration)
    XCTAssertTrue(ConfigurationKeys.changed(from: status, to: current).isEmpty, name)
  }
}
