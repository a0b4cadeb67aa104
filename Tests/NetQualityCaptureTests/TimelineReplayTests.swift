import Foundation
import NetQualityCapture
import NetQualityCore
import NetQualitySynth
import XCTest

/// A capture file replayed through the engine on packet time: the same engine as the unit
/// scenarios, through the file reader and the tick schedule.
final class TimelineReplayTests: XCTestCase {
  func testSilenceInACaptureDisconnectsAtTwelveSeconds() throws {
    let local = Endpoint(address: IPAddress(ipv4: 192, 0, 2, 1), port: 4000)
    let remote = Endpoint(address: IPAddress(ipv4: 198, 51, 100, 2), port: 6000)
    var writer = PcapWriter()
    let start: Int64 = 1_767_225_600_300_000_000
    // 20 s of audio, 15 s of silence, 10 s more.
    for index in 0..<2250 where !(1000..<1750).contains(index) {
      let rtp = PacketBuilder.rtp(
        payloadType: 8, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: 0xCAFE)
      writer.append(
        PacketBuilder.frame(source: remote, destination: local, payload: rtp),
        at: CaptureTime(nanosecondsSinceEpoch: start + Int64(index) * 20_000_000))
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "silence-\(UUID()).pcap")
    try Data(writer.bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }

    var configuration = EngineConfiguration()
    configuration.localNetworks = [try XCTUnwrap(NetworkPrefix("192.0.2.0/24"))]
    var engine = Engine(configuration: configuration)
    var schedule = TickSchedule(intervalSeconds: 2)
    var ticks: [Engine.TickResult] = []
    let completion = try PcapFileReader(path: url.path).replay(into: &engine, schedule: &schedule) {
      ticks.append($0)
    }
    XCTAssertEqual(completion, .endOfFile)
    // Ticks on even seconds of Unix time, from the first boundary after the first packet.
    XCTAssertEqual(ticks.first?.snapshot.time, CaptureTime(seconds: 1_767_225_602, nanoseconds: 0))
    XCTAssertEqual(ticks.count, 23)
    let events = ticks.flatMap(\.events)
    let lastPacket = Double(start + 999 * 20_000_000) * 1e-9
    let disconnected = try XCTUnwrap(events.first { $0.kind == .disconnected })
    XCTAssertEqual(disconnected.time.secondsSinceEpoch, lastPacket + 12, accuracy: 1e-6)
    let reporting = try XCTUnwrap(ticks.first { $0.events.contains { $0.kind == .disconnected } })
    XCTAssertEqual(reporting.snapshot.peers.first?.rx.level, .down)
    XCTAssertLessThanOrEqual(reporting.snapshot.time.secondsSinceEpoch - (lastPacket + 12), 2)
    let recovered = try XCTUnwrap(events.first { $0.kind == .recovered })
    XCTAssertEqual(
      recovered.time.secondsSinceEpoch, Double(start + 1750 * 20_000_000) * 1e-9, accuracy: 1e-6)
    XCTAssertEqual(ticks.last?.snapshot.peers.first?.state, .connected)
  }
}
