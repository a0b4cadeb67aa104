import Foundation
import Hummingbird
import HummingbirdTesting
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore
import NetQualitySynth
import XCTest

@testable import NetQualityAgent

/// `/metrics` on a fixed replay, byte for byte against a committed golden file (issue 30: a
/// refactoring of how the exposition is assembled must not change what a scrape gets). The
/// replay: a generated capture of six G.711 calls with loss, duplicates, reordering, jitter, RTCP
/// both ways, an outage and a sender restart, ticked every 2 s through the agent's own ticker and
/// HTTP sink; a probed peer; the capture, probe sender, reflector, HTTP, web and dashboard
/// figures set as their services would. Families whose values are timings or wall-clock times
/// are left out (`volatileFamilies`).
///
/// A change that is meant to change the exposition updates the file:
/// `NETQUALITY_UPDATE_GOLDEN=1 swift test --filter MetricsGoldenTests`, and the diff is reviewed
/// with the change.
final class MetricsGoldenTests: XCTestCase {
  static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Golden/metrics.txt")

  /// Timings, wall-clock times and the test process' own figures: they differ from run to run.
  static let volatileFamilies =
    [
      "netquality_scrape_duration_seconds", "netquality_tick_duration_seconds",
      "netquality_tick_lateness_seconds", "netquality_tick_phase_seconds_total",
      // Its buckets and sum are timings; its count, the ticks, stays in the file.
      "netquality_tick_completion_seconds_bucket", "netquality_tick_completion_seconds_sum",
      "netquality_config_last_reload_success_timestamp_seconds",
      "netquality_storage_database_bytes",
    ] + ProcessCollector.families.map(\.name)

  static func replayedState() -> AgentState {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("10.10.0.0/16")].compactMap { $0 }
    configuration.peerGroups = [
      (name: "pinned-group", networks: [NetworkPrefix("10.20.0.1/32")].compactMap { $0 })
    ]
    configuration.alertRules =
      AlertRule.builtIn + [
        AlertRule(
          name: "high_loss", metric: .rxLossRatio, comparison: .greater, threshold: 0.01,
          forTicks: 3, clearThreshold: 0.005, severity: .warning)
      ]
    // A history and an Alertmanager notifier that are never started: their families with the
    // figures of an agent that has written and sent nothing yet.
    let history = HistoryRecorder(
      settings: .init(
        path: "/nonexistent/history.db",
        maintenance: HistoryMaintenance(
          rawRetentionSeconds: 3600, aggregateRetentionSeconds: 86_400, maxBytes: 1 << 20),
        runName: "golden", version: "test"),
      log: { _, _ in })
    let alertmanager = AlertmanagerNotifier(
      settings: .init(
        urls: [AlertmanagerURL("http://127.0.0.1:9093")].compactMap { $0 }, timeoutSeconds: 2,
        resendIntervalSeconds: 60, queueCapacity: 100, context: AlertmanagerScheduleTests.context),
      log: { _, _ in })
    let state = AgentState(
      engine: Engine(configuration: configuration), history: history, alertmanager: alertmanager)
    state.update { published in
      published.metrics = .init(
        perStream: true, maxStreamSeries: 4, maxPeerSeries: 3, pinnedPeers: ["pinned-group"],
        alertRules: configuration.alertRules.map { ($0.name, $0.severity.rawValue) })
      published.interfaces = [
        "eth0": .init(
          name: "eth0", capturing: true, linkUp: true, receivedPackets: 9_000, droppedPackets: 3,
          interfaceDroppedPackets: 1)
      ]
      var sender = STAMPSender.Counters()
      sender.foreign = 2
      sender.missedSends = 1
      published.probeSenders = ["10.20.9.9:862": sender]
      var reflector = ReflectorCounters()
      reflector.packetsReceived = 40
      reflector.bytesReceived = 1_760
      reflector.packetsReflected = 39
      reflector.bytesReflected = 1_716
      reflector.refusedRateLimited = 1
      reflector.sessionsActive = 2
      published.reflector = reflector
    }
    let ticker = TickService(state: state, sinks: [PublishedStateSink(state: state)])
    var traffic = SyntheticTraffic(
      streams: 6, totalPackets: 9_000, lossPercent: 2, duplicatePercent: 0.5, reorderPercent: 1,
      jitterMilliseconds: 8, seed: 7)
    traffic.outage = (start: 10, seconds: 15)
    traffic.restartSeconds = [20]
    let interval: Int64 = 2_000_000_000
    var next: Int64?
    var last = traffic.start
    func tickUpTo(_ time: CaptureTime) {
      let boundary = next ?? (time.nanosecondsSinceEpoch / interval + 1) * interval
      var due = boundary
      while due <= time.nanosecondsSinceEpoch {
        let at = CaptureTime(nanosecondsSinceEpoch: due)
        ticker.tick(at: at, reading: at)
        due += interval
      }
      next = due
    }
    var probeSequence: UInt32 = 0
    traffic.generate { frame, time in
      tickUpTo(time)
      frame.withUnsafeBytes { bytes in
        state.capture.withLock {
          $0.ingest(frame: bytes, originalLength: bytes.count, linkType: .ethernet, at: time)
        }
      }
      // A probe every 100 ms to a reflector at 10.20.9.9, answered 8 ms later.
      if time.nanosecondsSinceEpoch - last.nanosecondsSinceEpoch >= 100_000_000 {
        last = time
        let reply = ProbeReply(
          reflectorReceivedAt: time.advanced(byNanoseconds: 4_000_000),
          reflectorSentAt: time.advanced(byNanoseconds: 4_100_000),
          receivedAt: time.advanced(byNanoseconds: 8_000_000), reflectorSequence: probeSequence,
          clocksSynchronized: true, kernelTimestamp: true)
        state.scorer.withLock {
          $0.record(
            probe: ProbeSample(
              target: Endpoint(address: IPAddress(ipv4: 10, 20, 9, 9), port: 862),
              sequence: probeSequence, sentAt: time, outcome: .replied(reply), reflectorGaps: 0))
        }
        probeSequence += 1
      }
    }
    tickUpTo(last.advanced(bySeconds: 20))
    return state
  }

  /// The exposition a scrape of the replayed agent gets, its volatile families left out.
  static func exposition() async throws -> String {
    let state = replayedState()
    let registry = ConnectionRegistry(
      limits: HTTPLimits(maxConnections: 8, requestTimeoutSeconds: 60))
    let security = WebSecurity(
      .init(
        configuration: try WebSecurityTests.web(
          "basic_auth_users: {prometheus: '\(WebSecurityTests.hash)'}\n"),
        tlsMaterial: nil))
    let app = Application(
      router: HTTPServer.router(state: state, registry: registry, security: security))
    let text = try await app.test(.router) { client in
      try await client.execute(
        uri: "/metrics", method: .get, headers: WebSecurityTests.basic("prometheus", "secret")
      ) { String(buffer: $0.body) }
    }
    let volatile = Set(volatileFamilies)
    return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
      let name =
        line.hasPrefix("# ")
        ? String(line.split(separator: " ").dropFirst(2).first ?? "")
        : String(line.prefix { $0 != "{" && $0 != " " })
      return !volatile.contains(name)
    }.joined(separator: "\n")
      // The commit and the compiler change under the test.
      .replacingOccurrences(of: "revision=\"\(BuildInfo.revision)\"", with: "revision=\"REVISION\"")
      .replacingOccurrences(
        of: "swiftversion=\"\(BuildInfo.swiftVersion)\"", with: "swiftversion=\"SWIFT\"")
  }

  func testMetricsOfAFixedReplayAreTheGoldenFile() async throws {
    let text = try await Self.exposition()
    if ProcessInfo.processInfo.environment["NETQUALITY_UPDATE_GOLDEN"] == "1" {
      try FileManager.default.createDirectory(
        at: Self.golden.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: Self.golden)
    }
    let golden = try String(contentsOf: Self.golden, encoding: .utf8)
    if text != golden {
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      let expected = golden.split(separator: "\n", omittingEmptySubsequences: false)
      let first = zip(lines, expected).enumerated().first { $0.element.0 != $0.element.1 }
      XCTFail(
        "/metrics differs from \(Self.golden.path) (\(lines.count) lines, golden \(expected.count))"
          + (first.map {
            ", first at line \($0.offset + 1):\n  got  \($0.element.0)\n  want \($0.element.1)"
          }
            ?? ""))
    }
    // Not a trivial replay: alerts, probes, streams and the pinned group are all in it.
    for needle in [
      "netquality_alerts_fired_total{alertname=\"peer_disconnected\",severity=\"critical\"} ",
      "netquality_probe_rtt_seconds_bucket", "netquality_stream_loss_ratio{",
      "peer=\"pinned-group\"", "netquality_peer_quality_seconds_total{",
    ] {
      XCTAssertTrue(text.contains(needle), needle)
    }
    XCTAssertFalse(
      text.contains(
        "netquality_alerts_fired_total{alertname=\"peer_disconnected\",severity=\"critical\"} 0"))
  }
}
