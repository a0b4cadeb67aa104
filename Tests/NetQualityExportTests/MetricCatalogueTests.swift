import NetQualityCore
import XCTest

@testable import NetQualityExport

/// The catalogue is the exposition's whole vocabulary: every family it renders is there with
/// its type, help and labels, and docs/metrics.md documents every entry.
final class MetricCatalogueTests: XCTestCase {
  /// Every collector with every part present, in the catalogue's order: peers with RTT, MOS,
  /// loss and jitter, a probed peer with synchronised clocks, a stream, alerts, interfaces,
  /// HTTP, history, dashboard file, probe sender and reflector.
  static func everyCollector() -> [any MetricsCollector] {
    let target = Endpoint(address: IPAddress(ipv4: 10, 9, 0, 2), port: 862)
    let start = FleetMetricsTests.time.nanosecondsSinceEpoch
    func time(_ milliseconds: Int64) -> CaptureTime {
      CaptureTime(nanosecondsSinceEpoch: start + milliseconds * 1_000_000)
    }
    var engine = Engine()
    for index in 0..<100 {
      let sent = Int64(index) * 20
      let reply = ProbeReply(
        reflectorReceivedAt: time(sent + 15), reflectorSentAt: time(sent + 16),
        receivedAt: time(sent + 30 + Int64(index % 3)), reflectorSequence: UInt32(index),
        clocksSynchronized: true, kernelTimestamp: true)
      engine.record(
        probe: ProbeSample(
          target: target, sequence: UInt32(index), sentAt: time(sent), outcome: .replied(reply),
          reflectorGaps: 0))
    }
    var snapshot = engine.tick(at: time(2_500)).snapshot
    snapshot.peers += (0..<6).map(FleetMetricsTests.peer)
    snapshot.streams = [
      StreamWindow(
        key: StreamKey(
          source: Endpoint(address: IPAddress(ipv4: 10, 0, 0, 1), port: 4000),
          destination: Endpoint(address: IPAddress(ipv4: 10, 0, 0, 9), port: 5004), ssrc: 7),
        direction: .rx, role: .media, state: .connected, packets: 100, expected: 101, lost: 1,
        lostChange: 1, duplicates: 0, late: 0, bitsPerSecond: 64_000, jitterMilliseconds: 3,
        roundTripMilliseconds: nil, packetsTotal: 1_000, lostTotal: 4)
    ]
    let alerts = [
      Alert(
        id: "a", rule: "peer_rx_quality_bad", severity: .warning,
        labels: ["peer": "10.0.0.4", "direction": "rx"], state: .firing,
        start: FleetMetricsTests.time, summary: "bad"),
      Alert(
        id: "storage_failing", rule: "storage_failing", severity: .critical,
        labels: ["kind": "disk_full"], state: .firing, start: FleetMetricsTests.time,
        summary: "disk full"),
    ]
    let tick = TickMetrics(
      snapshot, alerts: alerts,
      settings: .init(
        perStream: true, alertRules: AlertRule.builtIn.map { ($0.name, $0.severity.rawValue) }),
      levelCounters: { names in
        Dictionary(uniqueKeysWithValues: names.map { ($0, PeerLevelCounters()) })
      })
    // The rest from their own examples, in the catalogue's order: a new subsystem's collector
    // needs nothing here.
    return MetricCatalogue.collectors.compactMap { type in
      type == TickMetrics.self ? tick : type.anyExample
    }
  }

  func testEveryCollectorButTheTicksHasAnExample() {
    let without = MetricCatalogue.collectors.filter { $0.anyExample == nil }
    XCTAssertEqual(without.map { "\($0)" }, ["TickMetrics"])
  }

  func testEveryRenderedFamilyIsCataloguedWithItsTypeHelpAndLabels() throws {
    let text = PrometheusExposition.render(Self.everyCollector())
    var rendered: [String: MetricFamily.Kind] = [:]
    var helps: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let words = line.split(separator: " ", maxSplits: 3).map(String.init)
      if words.count == 4, words[1] == "TYPE" {
        rendered[words[2]] = MetricFamily.Kind(rawValue: words[3])
      } else if words.count == 4, words[1] == "HELP" {
        helps[words[2]] = words[3]
      } else if !line.hasPrefix("#") {
        let name = String(line.prefix { $0 != "{" && $0 != " " })
        let family = try XCTUnwrap(
          MetricCatalogue.family(ofSeries: name), "\(name) is not in the catalogue")
        let labels = try OperatorsKit.matches(#"([a-z_]+)=""#, String(line)).compactMap { $0[1] }
        let allowed = family.labels + (family.kind == .histogram ? ["le"] : [])
        XCTAssertEqual(
          Set(labels).subtracting(allowed), [], "\(line): labels the catalogue does not list")
      }
    }
    // The full exposition has every family, and only catalogue families, each from the
    // collector that declares it, in the catalogue's order.
    XCTAssertEqual(Set(rendered.keys), Set(MetricCatalogue.families.map(\.name)))
    XCTAssertEqual(
      text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map {
        String($0.split(separator: " ")[2])
      }, MetricCatalogue.families.map(\.name))
    for family in MetricCatalogue.families {
      XCTAssertEqual(rendered[family.name], family.kind, family.name)
      XCTAssertEqual(helps[family.name], MetricsWriter.escapeHelp(family.help), family.name)
    }
  }

  func testNamesFollowPrometheusNaming() {
    let names = MetricCatalogue.families.map(\.name)
    XCTAssertEqual(Set(names).count, names.count, "a family is listed twice")
    for family in MetricCatalogue.families {
      XCTAssertNotNil(
        family.name.wholeMatch(of: #/(netquality|process)_[a-z0-9_]+/#),
        "\(family.name): not snake case")
      // Only the process collector's standard names go without the prefix.
      XCTAssertEqual(
        family.name.hasPrefix("process_"), ProcessCollector.families.contains(family),
        family.name)
      // https://prometheus.io/docs/practices/naming/: counters end in _total, and only they.
      XCTAssertEqual(
        family.name.hasSuffix("_total"), family.kind == .counter, "\(family.name): _total")
      XCTAssertFalse(family.help.isEmpty, family.name)
      XCTAssertFalse(family.labels.contains("le"), family.name)
      XCTAssertEqual(Set(family.labels).count, family.labels.count, family.name)
    }
  }

  /// docs/metrics.md has a row per family: `| name | type | labels | meaning | example |`,
  /// with the catalogue's type and labels, and no row for a family that does not exist.
  func testMetricsReferenceDocumentsEveryFamily() throws {
    let rows = try OperatorsKit.matches(
      #"(?m)^\| `((?:netquality|process)_[a-z0-9_]+)` \| (\w+) \| ([^|]*) \|"#,
      try OperatorsKit.text("docs/metrics.md"))
    var documented: [String: (kind: String, labels: [String])] = [:]
    for row in rows {
      guard let name = row[1], let kind = row[2], let labels = row[3] else { continue }
      XCTAssertNil(documented[name], "\(name) is documented twice")
      documented[name] = (
        kind,
        try OperatorsKit.matches("`([a-z_]+)`", labels).compactMap { $0[1] }
      )
    }
    XCTAssertEqual(
      Set(documented.keys).subtracting(MetricCatalogue.families.map(\.name)), [],
      "documented but not in the catalogue")
    for family in MetricCatalogue.families {
      guard let entry = documented[family.name] else {
        XCTFail("docs/metrics.md does not document \(family.name)")
        continue
      }
      XCTAssertEqual(entry.kind, family.kind.rawValue, family.name)
      XCTAssertEqual(entry.labels, family.labels, family.name)
    }
  }
}
