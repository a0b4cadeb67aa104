import NetQualityCore
import NetQualitySynth
import XCTest

/// RFC 4588 retransmissions beside the media they repair, as WebRTC sends them (no SDP in the
/// capture): the retransmission stream is recognised by its repeated timestamps and kept out of
/// the peer's jitter and loss, and reported as retransmitted packets.
final class RepairStreamTests: XCTestCase {
  static let videoSSRC: UInt32 = 0x1111
  static let retransmissionSSRC: UInt32 = 0x2222

  /// VP8-like video from the remote peer: 30 frames/s of 3 packets each (90 kHz, 3000 ticks a
  /// frame, packets 0.5 ms apart), every packet on time; the packets `lost(i)` never arrive and
  /// are retransmitted 40 or 190 ms later (as NACKs and round trips vary) on their own stream
  /// with their original timestamp (RFC 4588 section 4); `extra` packets are merged in by
  /// time. Returns the retransmissions sent.
  @discardableResult
  static func videoWithRepairs(
    _ scenario: inout Scenario, seconds: Double, lost: (Int) -> Bool,
    extra: [(Double, [UInt8])] = []
  ) -> Int {
    var frames = extra
    var repairs = 0
    let packets = Int(seconds * 90)
    for index in 0..<packets {
      let frame = index / 3
      let arrival = Double(frame) / 30 + Double(index % 3) * 0.0005
      let timestamp = UInt32(truncatingIfNeeded: 500_000 + frame * 3000)
      if lost(index) {
        let rtx = PacketBuilder.rtp(
          payloadType: 97, sequenceNumber: UInt16(truncatingIfNeeded: 7000 + repairs),
          timestamp: timestamp, ssrc: retransmissionSSRC, payloadLength: 900)
        frames.append(
          (
            arrival + 0.04 + 0.15 * Double(repairs % 2),
            PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtx)
          ))
        repairs += 1
        continue
      }
      let rtp = PacketBuilder.rtp(
        payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: index), timestamp: timestamp,
        ssrc: videoSSRC, marker: index % 3 == 2, payloadLength: 900)
      frames.append(
        (
          arrival,
          PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtp)
        ))
    }
    for (arrival, frame) in frames.sorted(by: { $0.0 < $1.0 }) { scenario.feed(frame, at: arrival) }
    return repairs
  }

  func stream(_ ssrc: UInt32, in scenario: Scenario, tick: Int) -> StreamWindow? {
    scenario.ticks[tick].snapshot.streams.first { $0.key.ssrc == ssrc }
  }

  func testRetransmissionsStayOutOfThePeersJitterAndLoss() throws {
    var scenario = Scenario()
    // Every 25th packet lost and repaired 80 ms later: 4 % of the media.
    let repairs = Self.videoWithRepairs(&scenario, seconds: 10.1, lost: { $0 % 25 == 12 })
    scenario.idle(until: 12)
    let peer = try XCTUnwrap(scenario.peer(at: 4))
    let video = try XCTUnwrap(stream(Self.videoSSRC, in: scenario, tick: 4))
    let repair = try XCTUnwrap(stream(Self.retransmissionSSRC, in: scenario, tick: 4))
    XCTAssertEqual(video.role, .media)
    XCTAssertEqual(repair.role, .retransmission)
    // Without the exclusion the peer would take the repair stream's jitter: the age of what
    // it repairs, tens of milliseconds, where the video's is below a millisecond.
    XCTAssertGreaterThan(try XCTUnwrap(repair.jitterMilliseconds), 10)
    let videoJitter = try XCTUnwrap(video.jitterMilliseconds)
    XCTAssertLessThan(videoJitter, 1.5)
    XCTAssertEqual(try XCTUnwrap(peer.rx.inputs?.jitterMilliseconds), videoJitter, accuracy: 1e-9)
    // The peer's loss is the media's loss (the repairs do not fill the gaps: a capture point
    // before the receiver saw the packets go missing), and the repairs are counted as such.
    XCTAssertEqual(try XCTUnwrap(peer.rx.inputs?.lossRatio), 0.04, accuracy: 0.011)
    let total = try XCTUnwrap(scenario.ticks.last?.snapshot.peers.first).rxRetransmittedTotal
    XCTAssertEqual(total, Int64(repairs))
    let perTick = scenario.ticks.compactMap { $0.snapshot.peers.first?.rxRetransmittedPackets }
    XCTAssertEqual(perTick.reduce(0, +), Int64(repairs))
    let lastTick = scenario.ticks.count - 1
    XCTAssertEqual(
      scenario.ticks.last?.snapshot.peers.first?.rxPacketsTotal,
      stream(Self.videoSSRC, in: scenario, tick: lastTick)?.packetsTotal)
    // The offline report says which stream it repairs.
    let report = scenario.engine.analyzer.report()
    let repairReport = try XCTUnwrap(
      report.streams.first { $0.key.ssrc == Self.retransmissionSSRC })
    XCTAssertEqual(repairReport.role, .retransmission)
    XCTAssertEqual(repairReport.repairedSSRC, Self.videoSSRC)
  }

  /// After an outage a sender retransmits a burst of what the receiver asked for: the burst
  /// neither makes a bad window nor fires an alert.
  func testABurstOfRepairsAfterAnOutageRaisesNoAlert() throws {
    var scenario = Scenario()
    // 120 repairs of the 40 frames before 6 s, back to back 6.2 s in, while the video goes on.
    let burst = (0..<120).map { index in
      let frame = 140 + index / 3
      let rtx = PacketBuilder.rtp(
        payloadType: 97, sequenceNumber: UInt16(index), timestamp: UInt32(500_000 + frame * 3000),
        ssrc: Self.retransmissionSSRC, payloadLength: 900)
      return (
        6.2 + Double(index) * 0.0005,
        PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtx)
      )
    }
    Self.videoWithRepairs(&scenario, seconds: 20.1, lost: { _ in false }, extra: burst)
    let windows = scenario.ticks.compactMap { $0.snapshot.peers.first }
    XCTAssertTrue(windows.allSatisfy { ($0.rx.inputs?.jitterMilliseconds ?? 0) < 2 })
    XCTAssertTrue(windows.allSatisfy { $0.rx.rawLevel.rawValue <= QualityLevel.good.rawValue })
    XCTAssertFalse(scenario.events.contains { $0.kind == .alertFiring })
    XCTAssertEqual(windows.map(\.rxRetransmittedPackets).reduce(0, +), 120)
  }

  /// libwebrtc probes the bandwidth on the retransmission stream before the media starts:
  /// padding packets (P bit) with timestamps of their own, ahead of the media's or before any.
  /// Under SRTP their padding count is encrypted, so only the P bit tells them; they leave the
  /// stream's role open, and its first repairs decide it.
  func testPaddingProbesBeforeTheMediaLeaveTheRepairStreamsRoleOpen() throws {
    var scenario = Scenario()
    let probes = (0..<12).map { index in
      let rtx = PacketBuilder.rtp(
        payloadType: 97, sequenceNumber: UInt16(6300 + index),
        timestamp: index == 0 ? 0 : UInt32(500_000 + 400 * index), ssrc: Self.retransmissionSSRC,
        payloadLength: 0, padding: 255)
      return (
        Double(index) * 0.002,
        PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtx)
      )
    }
    let repairs = Self.videoWithRepairs(
      &scenario, seconds: 10.1, lost: { $0 % 25 == 12 }, extra: probes)
    scenario.idle(until: 12)
    let roles = Dictionary(
      uniqueKeysWithValues: scenario.engine.analyzer.report().streams.map { ($0.key.ssrc, $0.role) }
    )
    XCTAssertEqual(roles[Self.videoSSRC], .media)
    XCTAssertEqual(roles[Self.retransmissionSSRC], .retransmission)
    // The probes are the retransmission stream's packets too.
    XCTAssertEqual(scenario.lastPeer?.rxRetransmittedTotal, Int64(repairs + probes.count))
  }

  /// libwebrtc's payload padding: before any repair the retransmission stream repeats the
  /// newest frame's packets (as many as 8 in a row in Chromium's calls). Packets at the media's
  /// pace prove nothing; the first repairs decide.
  func testPayloadPaddingAtTheMediasPaceLeavesTheRoleOpen() throws {
    var scenario = Scenario()
    let padding = (0..<10).map { index in
      // Frame 3 + index arrived at (3 + index) / 30 s; its repeat 2 ms later.
      let frame = 3 + index
      let rtx = PacketBuilder.rtp(
        payloadType: 97, sequenceNumber: UInt16(5000 + index),
        timestamp: UInt32(500_000 + frame * 3000), ssrc: Self.retransmissionSSRC,
        payloadLength: 900)
      return (
        Double(frame) / 30 + 0.002,
        PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtx)
      )
    }
    Self.videoWithRepairs(&scenario, seconds: 10.1, lost: { $0 % 25 == 12 }, extra: padding)
    scenario.idle(until: 12)
    let roles = Dictionary(
      uniqueKeysWithValues: scenario.engine.analyzer.report().streams.map { ($0.key.ssrc, $0.role) }
    )
    XCTAssertEqual(roles[Self.videoSSRC], .media)
    XCTAssertEqual(roles[Self.retransmissionSSRC], .retransmission)
  }

  /// After an outage the receiver asks for what it missed, and the sender's retransmissions may
  /// reach the capture point before its next new frame: the first repairs are ahead of
  /// everything the media stream showed. They leave the role open; the later ones decide it.
  func testRepairsAheadOfTheMediaAfterAnOutageLeaveTheRoleOpen() throws {
    var scenario = Scenario()
    var frames: [(Double, [UInt8])] = []
    var rtxSequence: UInt16 = 100
    func rtx(frame: Int, at time: Double) {
      let packet = PacketBuilder.rtp(
        payloadType: 97, sequenceNumber: rtxSequence, timestamp: UInt32(500_000 + frame * 3000),
        ssrc: Self.retransmissionSSRC, payloadLength: 900)
      rtxSequence &+= 1
      frames.append(
        (
          time,
          PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: packet)
        ))
    }
    // 30 frames/s of one packet; frames 90...99 (0.33 s) lost, their repairs at 3.34 s: the
    // last lost frame's first, just before frame 100, the rest after it.
    for frame in 0..<300 where !(90...99).contains(frame) {
      let packet = PacketBuilder.rtp(
        payloadType: 96, sequenceNumber: UInt16(frame), timestamp: UInt32(500_000 + frame * 3000),
        ssrc: Self.videoSSRC, marker: true, payloadLength: 900)
      frames.append(
        (
          Double(frame) / 30,
          PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: packet)
        ))
    }
    for (step, frame) in [99, 98, 97].enumerated() {
      rtx(frame: frame, at: 3.3333 - 0.0003 + Double(step) * 0.0001)
    }
    for (step, frame) in (90...96).enumerated() {
      rtx(frame: frame, at: 3.34 + Double(step) * 0.001)
    }
    for (arrival, frame) in frames.sorted(by: { $0.0 < $1.0 }) { scenario.feed(frame, at: arrival) }
    scenario.idle(until: 12)
    let roles = Dictionary(
      uniqueKeysWithValues: scenario.engine.analyzer.report().streams.map { ($0.key.ssrc, $0.role) }
    )
    XCTAssertEqual(roles[Self.videoSSRC], .media)
    XCTAssertEqual(roles[Self.retransmissionSSRC], .retransmission)
    XCTAssertEqual(scenario.lastPeer?.rxRetransmittedTotal, 10)
  }

  /// Two streams of one peer that merely share a flow (bundled audio and video) are both
  /// media, and so is a layer that sends the same frames as its sibling in step (simulcast).
  func testStreamsThatKeepPaceAreMedia() throws {
    var scenario = Scenario()
    var frames: [(Double, [UInt8])] = []
    for index in 0..<600 {
      let time = Double(index) / 60
      let frame = index / 2
      // Video, and a second layer with the very same timestamps at the same time.
      for (ssrc, offset) in [(Self.videoSSRC, 0.0), (Self.retransmissionSSRC, 0.001)] {
        let rtp = PacketBuilder.rtp(
          payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(9_000 + frame * 3000),
          ssrc: ssrc)
        frames.append(
          (
            time + offset,
            PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtp)
          ))
      }
    }
    for (arrival, frame) in frames.sorted(by: { $0.0 < $1.0 }) { scenario.feed(frame, at: arrival) }
    // Bundled audio on the same flow, timestamps unrelated to the video's.
    scenario.audio(ssrc: 0x3333, seconds: 10..<14)
    scenario.idle(until: 14)
    let roles = Dictionary(
      uniqueKeysWithValues: scenario.engine.analyzer.report().streams.map { ($0.key.ssrc, $0.role) }
    )
    XCTAssertEqual(roles[Self.videoSSRC], .media)
    XCTAssertEqual(roles[Self.retransmissionSSRC], .media)
    XCTAssertEqual(roles[0x3333], .media)
    XCTAssertEqual(scenario.lastPeer?.rxRetransmittedTotal, 0)
  }

  /// SDP names the formats when it is in the capture (SIP): `rtx` and `ulpfec` streams get
  /// their role from it, without waiting for behaviour.
  func testSignalledRepairFormats() throws {
    var scenario = Scenario()
    let sdp = """
      INVITE sip:bob@192.0.2.1 SIP/2.0\r
      Via: SIP/2.0/UDP 198.51.100.7:5060\r
      Content-Type: application/sdp\r
      \r
      v=0\r
      o=- 1 1 IN IP4 198.51.100.7\r
      s=-\r
      c=IN IP4 192.0.2.1\r
      t=0 0\r
      m=video 40000 RTP/AVP 96 97 98\r
      a=rtpmap:96 VP8/90000\r
      a=rtpmap:97 rtx/90000\r
      a=fmtp:97 apt=96\r
      a=rtpmap:98 ulpfec/90000\r

      """
    scenario.feed(
      PacketBuilder.frame(
        source: Endpoint(address: Scenario.remote.address, port: 5060),
        destination: Endpoint(address: Scenario.local.address, port: 5060),
        payload: Array(sdp.utf8)), at: 0)
    for index in 0..<100 {
      for (ssrc, type) in [(UInt32(0xA1), UInt8(96)), (0xA2, 97), (0xA3, 98)] {
        // The repair streams here carry unrelated timestamps: only SDP can tell their role.
        let rtp = PacketBuilder.rtp(
          payloadType: type, sequenceNumber: UInt16(index),
          timestamp: UInt32(index * 3000) &+ ssrc &* 77_777, ssrc: ssrc)
        scenario.feed(
          PacketBuilder.frame(source: Scenario.remote, destination: Scenario.local, payload: rtp),
          at: 0.1 + Double(index) * 0.033)
      }
    }
    scenario.idle(until: 4.1)
    let roles = Dictionary(
      uniqueKeysWithValues: scenario.engine.analyzer.report().streams.map { ($0.key.ssrc, $0.role) }
    )
    XCTAssertEqual(roles[0xA1], .media)
    XCTAssertEqual(roles[0xA2], .retransmission)
    XCTAssertEqual(roles[0xA3], .fec)
    let peer = try XCTUnwrap(scenario.lastPeer)
    XCTAssertEqual(peer.rxFECTotal, 100)
    XCTAssertEqual(peer.rxRetransmittedTotal, 100)
    XCTAssertEqual(peer.rxPacketsTotal, 100)
  }
}
