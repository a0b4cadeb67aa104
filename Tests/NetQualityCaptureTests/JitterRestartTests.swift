import Foundation
import NetQualityCapture
import NetQualityCore
import NetQualitySynth
import XCTest

/// A sender that restarts sequence number and timestamp within its SSRC (an SBC or media relay
/// re-anchoring media, RFC 3550 A.1): the same audio with and without two restarts, as capture
/// files, must give the same jitter: the restart is a new timestamp base, not network delay.
final class JitterRestartTests: XCTestCase {
  /// Two G.711 streams for 30 s with up to 8 ms of arrival noise, written to a pcap file.
  func capture(restartSeconds: [Double]) throws -> URL {
    var traffic = SyntheticTraffic(
      streams: 2, totalPackets: 3000, jitterMilliseconds: 8, rtcpEveryPackets: 250, seed: 11)
    traffic.restartSeconds = restartSeconds
    var writer = PcapWriter()
    traffic.generate { frame, time in writer.append(frame, at: time) }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "restart-\(UUID()).pcap")
    try Data(writer.bytes).write(to: url)
    return url
  }

  func streams(_ url: URL) throws -> [StreamReport] {
    var analyzer = StreamAnalyzer()
    XCTAssertEqual(try PcapFileReader(path: url.path).feed(&analyzer), .endOfFile)
    return analyzer.report().streams.sorted { $0.key.ssrc < $1.key.ssrc }
  }

  /// The largest rx jitter any tick scored, per peer, replaying with 10.10.0.0/16 local.
  func tickJitter(_ url: URL) throws -> [String: Double] {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [try XCTUnwrap(NetworkPrefix("10.10.0.0/16"))]
    var engine = Engine(configuration: configuration)
    var schedule = TickSchedule(intervalSeconds: 2)
    var largest: [String: Double] = [:]
    _ = try PcapFileReader(path: url.path).replay(into: &engine, schedule: &schedule) { result in
      for peer in result.snapshot.peers {
        if let jitter = peer.rx.inputs?.jitterMilliseconds {
          largest[peer.peer] = max(largest[peer.peer] ?? 0, jitter)
        }
      }
    }
    return largest
  }

  func testJitterAcrossTwoRestartsEqualsTheSameAudioWithout() throws {
    let plain = try capture(restartSeconds: [])
    let restarted = try capture(restartSeconds: [10, 20])
    defer {
      try? FileManager.default.removeItem(at: plain)
      try? FileManager.default.removeItem(at: restarted)
    }
    let before = try streams(plain)
    let after = try streams(restarted)
    XCTAssertEqual(before.count, 2)
    XCTAssertEqual(after.count, 2)
    for (reference, stream) in zip(before, after) {
      XCTAssertEqual(stream.sequenceResets, 2)
      XCTAssertEqual(stream.packets, reference.packets)
      XCTAssertEqual(stream.lost, 0)
      let referenceMax = try XCTUnwrap(reference.maxJitterSeconds) * 1000
      let restartedMax = try XCTUnwrap(stream.maxJitterSeconds) * 1000
      XCTAssertGreaterThan(referenceMax, 1, "the noise gives real jitter to compare")
      XCTAssertEqual(restartedMax, referenceMax, accuracy: 0.1)
      XCTAssertEqual(
        try XCTUnwrap(stream.meanJitterSeconds) * 1000,
        try XCTUnwrap(reference.meanJitterSeconds) * 1000, accuracy: 0.1)
    }
    // The 2 s windows the levels are scored on see the same jitter too.
    let referenceTicks = try tickJitter(plain)
    let restartedTicks = try tickJitter(restarted)
    XCTAssertEqual(referenceTicks.count, 1)
    for (peer, jitter) in referenceTicks {
      XCTAssertEqual(try XCTUnwrap(restartedTicks[peer]), jitter, accuracy: 0.1, peer)
    }
  }
}
