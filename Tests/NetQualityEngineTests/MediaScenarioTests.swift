import NetQualityCore
import NetQualitySynth
import XCTest

extension Scenario {
  /// Video at `framesPerSecond`, `packetsPerFrame` packets a frame (the marker on the last),
  /// dynamic payload type 96 without SDP, from the remote side over [start, end) seconds;
  /// `dropFrame(i)` loses frame i whole.
  mutating func video(
    seconds range: Range<Double>, framesPerSecond: Double = 30, packetsPerFrame: Int = 3,
    ssrc: UInt32 = 0xF00D, dropFrame: (Int) -> Bool = { _ in false }
  ) {
    let first = Int((range.lowerBound * framesPerSecond).rounded())
    let count = Int(((range.upperBound - range.lowerBound) * framesPerSecond).rounded())
    for frame in first..<(first + count) where !dropFrame(frame) {
      for packet in 0..<packetsPerFrame {
        let rtp = PacketBuilder.rtp(
          payloadType: 96,
          sequenceNumber: UInt16(truncatingIfNeeded: frame * packetsPerFrame + packet),
          timestamp: UInt32(truncatingIfNeeded: frame * Int(90_000 / framesPerSecond)),
          ssrc: ssrc, marker: packet == packetsPerFrame - 1, payloadLength: 1000)
        feed(
          PacketBuilder.frame(source: Self.remote, destination: Self.local, payload: rtp),
          at: Double(frame) / framesPerSecond + Double(packet) * 0.0002)
      }
    }
  }
}

final class MediaScenarioTests: XCTestCase {
  func testFramesPerTickFreezesAndTheVideoFreezesAlert() {
    var scenario = Scenario()
    // Half-second blackouts at 6.0, 8.0 and 20.0 s: freezes in the ticks at 8 and 10 (two in
    // a row: the alert fires at 10) and at 22 (one: pending, no second alert).
    let lost: [Range<Double>] = [6.0..<6.5, 8.0..<8.5, 20.0..<20.5]
    scenario.video(seconds: 0..<60) { frame in
      lost.contains { $0.contains(Double(frame) / 30) }
    }
    scenario.idle(until: 60)
    let media = scenario.ticks.map { $0.snapshot.peers.first?.media?.rx }
    // Ticks at 2, 4, 6, ... s (index 1 is the window from 2 to 4 s): 60 frames in 2 s.
    XCTAssertEqual(media[1]?.framesPerSecond ?? 0, 30, accuracy: 1e-9)
    XCTAssertEqual(media[1]?.window.freezes, 0)
    // The tick at 8 s (index 3) judged the interval over the frames lost from 6.0 to 6.5 s.
    let freezesByTick = media.map { $0?.window.freezes ?? 0 }
    XCTAssertEqual(freezesByTick.reduce(0, +), 3)
    XCTAssertEqual(freezesByTick[3], 1)
    XCTAssertEqual(freezesByTick[4], 1)
    XCTAssertEqual(freezesByTick[10], 1)
    let total = scenario.lastPeer?.media?.rx.total
    XCTAssertEqual(total?.framesReceived, 1800 - 45)
    XCTAssertEqual(total?.freezes, 3)
    // Each freeze spans the blackout and the frame interval before it: 0.5 + 1/30 s.
    XCTAssertEqual(total?.freezesSeconds ?? 0, 3 * (0.5 + 1.0 / 30), accuracy: 1e-6)
    let alerts = scenario.events.filter { $0.alert?.rule == "video_freezes" }
    XCTAssertEqual(alerts.map(\.kind), [.alertFiring, .alertResolved])
    XCTAssertEqual(alerts.first?.time, Scenario.time(10))
    // Resolved after 15 ticks without a freeze: the tick at 22 held it, so at 22 + 30 s.
    XCTAssertEqual(alerts.last?.time, Scenario.time(52))
  }

  func testFeedbackIsCountedPerDirectionPlainAndEncrypted() {
    var scenario = Scenario()
    scenario.video(seconds: 0..<4)
    // We ask the peer for two packets and a key frame (rx); the peer asks us once (tx), in
    // SRTCP whose first header alone is readable.
    let nack = RTCPBuilder.genericNACK(sender: 1, media: 0xF00D, packetID: 10, bitmask: 0x0001)
    scenario.feed(
      PacketBuilder.frame(
        source: Scenario.localRTCP, destination: Scenario.remoteRTCP, payload: nack), at: 4.1)
    let pli = RTCPBuilder.pictureLossIndication(sender: 1, media: 0xF00D)
    scenario.feed(
      PacketBuilder.frame(
        source: Scenario.localRTCP, destination: Scenario.remoteRTCP, payload: pli), at: 4.2)
    // An encrypted PLI: the clear header, then the encrypted media SSRC, the SRTCP index and a
    // 10-byte tag that do not tile as RTCP.
    let srtcp =
      Array(pli.prefix(8)) + [0xDE, 0xAD, 0xBE, 0xEF, 0x80, 0, 0, 1]
      + Array(
        repeating: 0x5A, count: 10)
    scenario.feed(
      PacketBuilder.frame(
        source: Scenario.remoteRTCP, destination: Scenario.localRTCP, payload: srtcp), at: 4.3)
    scenario.idle(until: 6)
    let media = scenario.lastPeer?.media
    XCTAssertEqual(media?.rx.feedbackWindow.nackMessages, 1)
    XCTAssertEqual(media?.rx.feedbackWindow.nackedPackets, 2)
    XCTAssertEqual(media?.rx.feedbackWindow.pictureLossIndications, 1)
    XCTAssertEqual(media?.tx.feedbackWindow.pictureLossIndications, 1)
    XCTAssertEqual(media?.tx.feedbackWindow.encryptedMessages, 1)
    XCTAssertEqual(scenario.last?.media.fleet.rxFeedback.nackMessages, 1)
  }
}
