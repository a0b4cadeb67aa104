import NetQualityCore
import XCTest

@testable import NetQualityExport

/// A probed peer in the exposition's `netquality_probe_*` families, the JSON and the dashboard.
final class ProbeRenderingTests: XCTestCase {
  func testHistogramsAreCumulativeWithSumAndCount() {
    var histogram = DelayHistogram(boundsSeconds: [0.01, 0.1])
    for seconds in [0.005, 0.05, 0.06, 3] { histogram.add(seconds) }
    var writer = MetricsWriter()
    writer.histogram(.histogram("netquality_x_seconds", "x"), [("peer", "p")], histogram)
    XCTAssertEqual(
      writer.text,
      """
      netquality_x_seconds_bucket{peer="p",le="0.01"} 1
      netquality_x_seconds_bucket{peer="p",le="0.1"} 3
      netquality_x_seconds_bucket{peer="p",le="+Inf"} 4
      netquality_x_seconds_sum{peer="p"} 3.115
      netquality_x_seconds_count{peer="p"} 4

      """)
  }

  func testProbedPeerExportsLossByDirectionAndDelayHistograms() throws {
    let snapshot = Self.probedSnapshot()
    let text = TickMetrics(snapshot, alerts: [], settings: .init()).render()
    let peer = #"peer="10.9.0.2""#
    XCTAssertTrue(text.contains("netquality_probe_sent_total{\(peer)} 150\n"))
    XCTAssertTrue(text.contains("netquality_probe_lost_total{\(peer),direction=\"forward\"} 15\n"))
    XCTAssertTrue(text.contains("netquality_probe_lost_total{\(peer),direction=\"backward\"} 6\n"))
    XCTAssertTrue(text.contains("netquality_probe_received_total{\(peer)} 129\n"))
    for cause in ["reflector_stall", "path_delay"] {
      XCTAssertTrue(
        text.contains("netquality_probe_late_answers_total{\(peer),cause=\"\(cause)\"} 0\n"))
    }
    // 50 µs doubling (smokeping_prober's layout): the 30 ms answers between 25.6 and 51.2 ms.
    XCTAssertTrue(text.contains("netquality_probe_rtt_seconds_bucket{\(peer),le=\"5e-05\"} 0\n"))
    XCTAssertTrue(text.contains("netquality_probe_rtt_seconds_bucket{\(peer),le=\"0.0256\"} 0\n"))
    XCTAssertTrue(text.contains("netquality_probe_rtt_seconds_bucket{\(peer),le=\"0.0512\"} 129\n"))
    XCTAssertTrue(text.contains("netquality_probe_rtt_seconds_count{\(peer)} 129\n"))
    XCTAssertTrue(text.contains("timestamps=\"kernel\""))
    // Unsynchronised clocks: no one-way delay series.
    XCTAssertFalse(text.contains("netquality_probe_delay_seconds_bucket"))
    let rtt = text.split(separator: "\n").first { $0.hasPrefix("netquality_peer_rtt_seconds{") }
    let rttParts = try XCTUnwrap(rtt).split(separator: " ")
    XCTAssertEqual(rttParts.first, "netquality_peer_rtt_seconds{\(peer),source=\"probe\"}")
    XCTAssertEqual(try XCTUnwrap(Double(String(rttParts.last ?? ""))), 0.03, accuracy: 1e-9)
    let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
    XCTAssertEqual(Set(types).count, types.count)
  }

  /// 150 probes every 20 ms to 10.9.0.2: every 10th lost on the way there, every 25th on the
  /// way back (a gap in the reflector's numbers, as the probe session counts them); 15 ms each
  /// way.
  static func probedSnapshot() -> Snapshot {
    let target = Endpoint(address: IPAddress(ipv4: 10, 9, 0, 2), port: 862)
    let start: Int64 = 1_800_000_000_000_000_000
    func time(_ milliseconds: Int64) -> CaptureTime {
      CaptureTime(nanosecondsSinceEpoch: start + milliseconds * 1_000_000)
    }
    var engine = Engine()
    var reflectorSequence: UInt32 = 0
    var gaps: Int64 = 0
    for index in 0..<150 {
      let sent = Int64(index) * 20
      var outcome = ProbeSample.Outcome.lost
      if index % 10 != 3 {
        if index % 25 != 11 {
          outcome = .replied(
            ProbeReply(
              reflectorReceivedAt: time(sent + 15), reflectorSentAt: time(sent + 15),
              receivedAt: time(sent + 30), reflectorSequence: reflectorSequence,
              kernelTimestamp: true))
        } else {
          gaps += 1
        }
        reflectorSequence += 1
      }
      engine.record(
        probe: ProbeSample(
          target: target, sequence: UInt32(index), sentAt: time(sent), outcome: outcome,
          reflectorGaps: gaps))
    }
    return engine.tick(at: time(3000)).snapshot
  }

  /// `isProbed`, kept inline for `/metrics`, says what `probe` says, whichever way the probe
  /// figures were set or taken away.
  func testIsProbedFollowsTheProbeFigures() throws {
    let probed = try XCTUnwrap(Self.probedSnapshot().peers.first)
    XCTAssertNotNil(probed.probe)
    XCTAssertTrue(probed.isProbed)
    XCTAssertEqual(probed.sources, [.probe])
    var changed = probed
    changed.probe = nil
    XCTAssertFalse(changed.isProbed)
    XCTAssertEqual(changed.sources, [])
    changed.media = PeerMedia()
    XCTAssertFalse(changed.isProbed, "media alone is not a probe")
    changed.probe = probed.probe
    XCTAssertTrue(changed.isProbed)
    XCTAssertNotEqual(changed, probed, "the media differs")
    changed.media = nil
    XCTAssertEqual(changed, probed)
  }

  /// The engine's `probeRoundTripBoundsSeconds` (`probe_rtt_buckets`) are the exposition's
  /// buckets.
  func testConfiguredRoundTripBucketsAreTheExposedOnes() throws {
    var configuration = EngineConfiguration()
    configuration.probeRoundTripBoundsSeconds = [0.01, 0.025, 0.1]
    let target = Endpoint(address: IPAddress(ipv4: 10, 9, 0, 3), port: 862)
    var engine = Engine(configuration: configuration)
    let start = CaptureTime(nanosecondsSinceEpoch: 1_800_000_000_000_000_000)
    for index in 0..<10 {
      let sent = start.advanced(byNanoseconds: Int64(index) * 20_000_000)
      engine.record(
        probe: ProbeSample(
          target: target, sequence: UInt32(index), sentAt: sent,
          outcome: .replied(
            ProbeReply(
              reflectorReceivedAt: sent.advanced(byNanoseconds: 10_000_000),
              reflectorSentAt: sent.advanced(byNanoseconds: 10_000_000),
              receivedAt: sent.advanced(byNanoseconds: Int64(index < 5 ? 20 : 50) * 1_000_000),
              reflectorSequence: UInt32(index), kernelTimestamp: true)),
          reflectorGaps: 0))
    }
    let snapshot = engine.tick(at: start.advanced(bySeconds: 2)).snapshot
    let text = TickMetrics(snapshot, alerts: [], settings: .init()).render()
    let peer = #"peer="10.9.0.3""#
    for (bound, count) in [("0.01", 0), ("0.025", 5), ("0.1", 10), ("+Inf", 10)] {
      XCTAssertTrue(
        text.contains("netquality_probe_rtt_seconds_bucket{\(peer),le=\"\(bound)\"} \(count)\n"),
        bound)
    }
    XCTAssertFalse(text.contains("netquality_probe_rtt_seconds_bucket{\(peer),le=\"5e-05\"}"))
  }

  func testTheDashboardAndJSONSayWhatMeasuredThePeer() throws {
    let snapshot = Self.probedSnapshot()
    let frame = DashboardFrame.render(
      Engine.TickResult(snapshot: snapshot, events: []), firingAlerts: 0)
    let row = try XCTUnwrap(frame.split(separator: "\n").first { $0.hasPrefix("10.9.0.2") })
    XCTAssertTrue(row.contains(" probe "), String(row))
    XCTAssertTrue(row.contains("connected"), String(row))
    let json = TimelineJSON.peer(try XCTUnwrap(snapshot.peers.first)).text
    XCTAssertTrue(json.contains(#""sources":["probe"]"#), json)
    XCTAssertTrue(json.contains(#""forward_lost":15"#), json)
    XCTAssertTrue(json.contains(#""backward_lost":6"#), json)
    XCTAssertTrue(json.contains(#""timestamps":"kernel""#), json)
  }
}
