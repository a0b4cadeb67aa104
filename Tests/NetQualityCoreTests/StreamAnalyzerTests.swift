import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class StreamAnalyzerTests: XCTestCase {
  func testCleanG711StreamStatistics() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(count: 250)
    let report = analyzer.report()
    XCTAssertEqual(report.streams.count, 1)
    let stream = try XCTUnwrap(report.streams.first)
    XCTAssertEqual(stream.key.source, Net.alice)
    XCTAssertEqual(stream.key.destination, Net.bob)
    XCTAssertEqual(stream.packets, 250)
    XCTAssertEqual(stream.expected, 250)
    XCTAssertEqual(stream.lost, 0)
    XCTAssertEqual(stream.payloadBytes, 250 * 160)
    XCTAssertEqual(stream.payloadTypes, [0])
    XCTAssertEqual(stream.encodingName, "PCMU")
    XCTAssertEqual(stream.clockRateHz, 8000)
    XCTAssertEqual(stream.clockRateSource, .static)
    XCTAssertEqual(try XCTUnwrap(stream.maxJitterSeconds), 0, accuracy: 1e-9)
    XCTAssertEqual(stream.maxDeltaSeconds, 0.020, accuracy: 1e-9)
    XCTAssertEqual(try XCTUnwrap(stream.payloadBitsPerSecond), 64_000 * 250 / 249, accuracy: 1)
    XCTAssertEqual(stream.confirmation, .sequence)
    XCTAssertEqual(report.capture.rtpPackets, 250)
    XCTAssertEqual(report.capture.nonRTPUDP, 0)
  }

  func testLossDuplicatesAndReorderingAreCountedApart() throws {
    var analyzer = StreamAnalyzer()
    var sequence = Array(0..<200).filter { ![20, 21, 22, 90].contains($0) }
    sequence.insert(50, at: 60)  // duplicate of 50
    sequence.swapAt(100, 101)  // one late packet
    for (index, number) in sequence.enumerated() {
      let rtp = PacketBuilder.rtp(
        payloadType: 8, sequenceNumber: UInt16(number), timestamp: UInt32(number * 160), ssrc: 7)
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: rtp),
        at: Net.time(Double(index) * 20))
    }
    let stream = try XCTUnwrap(analyzer.stream(7))
    XCTAssertEqual(stream.packets, 197)
    XCTAssertEqual(stream.lost, 4)
    XCTAssertEqual(stream.duplicates, 1)
    XCTAssertEqual(stream.reordered, 1)
    XCTAssertEqual(stream.longestLossBurst, 3)
  }

  func testRandomUDPIsNotAStream() {
    var analyzer = StreamAnalyzer()
    var random = SplitMix64(seed: 42)
    for index in 0..<500 {
      var payload = (0..<60).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      payload[0] = 0x80 | payload[0] & 0x3F  // looks like RTP version 2
      payload[1] &= 0x7F  // and not RTCP
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: payload),
        at: Net.time(Double(index)))
    }
    let report = analyzer.report()
    XCTAssertEqual(report.streams.count, 0)
    XCTAssertEqual(report.capture.nonRTPUDP, 500)
    XCTAssertEqual(report.capture.rtpPackets, 0)
  }

  func testRTPVersionOneAndZeroLengthUDPAreOtherUDP() {
    var analyzer = StreamAnalyzer()
    for index in 0..<10 {
      let v1 = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(index), timestamp: 0, ssrc: 1, version: 1)
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: v1),
        at: Net.time(Double(index)))
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: []),
        at: Net.time(Double(index)))
    }
    let report = analyzer.report()
    XCTAssertEqual(report.streams.count, 0)
    XCTAssertEqual(report.capture.udpDatagrams, 20)
    XCTAssertEqual(report.capture.nonRTPUDP, 20)
    XCTAssertEqual(report.capture.decodeErrorTotal, 0)
  }

  func testMalformedRTPOnAKnownStreamIsADecodeError() {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(count: 10)
    var bad = PacketBuilder.rtp(
      payloadType: 0, sequenceNumber: 1010, timestamp: 1600, ssrc: 0x1111, payloadLength: 4,
      extensionWords: 1)
    bad[15] = 99  // extension length runs past the datagram
    analyzer.feed(
      PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: bad), at: Net.time(300))
    XCTAssertEqual(analyzer.report().capture.decodeErrors, ["rtp_header": 1])
  }

  func testRoundTripFromSenderAndReceiverReports() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xB0B, count: 50)
    // Bob's SR passes the tap at 1000 ms; Alice answers 100 ms later having held it 20 ms.
    let ntp: UInt64 = 0xE000_0000_8000_0000
    let sr = RTCPBuilder.senderReport(
      ssrc: 0xB0B, ntpTimestamp: ntp, rtpTimestamp: 8000, packetCount: 50, octetCount: 8000)
    analyzer.feed(
      PacketBuilder.frame(source: Net.bobRTCP, destination: Net.aliceRTCP, payload: sr),
      at: Net.time(1000))
    let block = RTCPReportBlock(
      reporterSSRC: 0xA11CE, sourceSSRC: 0xB0B, fractionLost: 38, cumulativeLost: 7,
      extendedHighestSequence: 1049, jitter: 80, lastSR: UInt32(truncatingIfNeeded: ntp >> 16),
      delaySinceLastSR: UInt32(0.020 * 65_536))
    let rr =
      RTCPBuilder.receiverReport(ssrc: 0xA11CE, blocks: [block])
      + RTCPBuilder.sourceDescription(ssrc: 0xA11CE, canonicalName: "alice")
    analyzer.feed(
      PacketBuilder.frame(source: Net.aliceRTCP, destination: Net.bobRTCP, payload: rr),
      at: Net.time(1100))
    let stream = try XCTUnwrap(analyzer.stream(0xB0B))
    XCTAssertEqual(stream.feedback.senderReports, 1)
    XCTAssertEqual(stream.feedback.reportBlocks, 1)
    XCTAssertEqual(try XCTUnwrap(stream.feedback.lastFractionLost), 38.0 / 256, accuracy: 1e-12)
    XCTAssertEqual(stream.feedback.lastCumulativeLost, 7)
    XCTAssertEqual(try XCTUnwrap(stream.reportedJitterSeconds), 0.010, accuracy: 1e-12)
    // 100 ms between SR and RR at the tap, minus 20 ms held (to 1/65536 s).
    XCTAssertEqual(try XCTUnwrap(stream.feedback.roundTrip.meanSeconds), 0.080, accuracy: 0.000_02)
    XCTAssertEqual(analyzer.report().capture.rtcpPackets, 2)
  }

  func testByeAndCanonicalNameAttachToTheSendersStream() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(count: 20)
    let bye =
      RTCPBuilder.receiverReport(ssrc: 0x1111, blocks: [])
      + RTCPBuilder.sourceDescription(ssrc: 0x1111, canonicalName: "alice@host")
      + RTCPBuilder.goodbye(ssrc: 0x1111)
    analyzer.feed(
      PacketBuilder.frame(source: Net.aliceRTCP, destination: Net.bobRTCP, payload: bye),
      at: Net.time(500))
    let stream = try XCTUnwrap(analyzer.stream(0x1111))
    XCTAssertEqual(stream.feedback.canonicalName, "alice@host")
    XCTAssertEqual(stream.feedback.goodbyeTime, Net.time(500))
    // The RTCP details live in a slot of their own, taken at the first RTCP: a stream without
    // RTCP has none, and a forgotten stream gives its slot back.
    analyzer.feedAudio(ssrc: 0x2222, count: 20, startMilliseconds: 600)
    XCTAssertEqual(analyzer.feedbacks.count, 1)
    XCTAssertEqual(analyzer.streams.map(\.feedbackSlot), [0, -1])
    analyzer.forget(silentSince: Net.time(5000))
    XCTAssertEqual(analyzer.liveStreamCount, 0)
    XCTAssertEqual(analyzer.feedbacks.count, 0)
  }

  func testRTCPFindsItsStreamAmongSSRCsThatShareTheirLowBits() throws {
    var analyzer = StreamAnalyzer()
    // SSRCs a multiple of 2^20 apart: the same low bits, which a table indexed by the SSRC's
    // own low bits would put in one probe run.
    let ssrcs: [UInt32] = (1...40).map { UInt32($0) << 20 }
    for (offset, ssrc) in ssrcs.enumerated() {
      analyzer.feedAudio(ssrc: ssrc, count: 5, startMilliseconds: Double(offset))
    }
    let homes = Set(ssrcs.map { StreamKey.ssrcTableTag($0) & 1023 })
    XCTAssertGreaterThan(homes.count, 30, "the tags spread over the table")
    // A BYE for every other one reaches that stream and no other.
    for ssrc in ssrcs.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
      analyzer.feed(
        PacketBuilder.frame(
          source: Net.aliceRTCP, destination: Net.bobRTCP,
          payload: RTCPBuilder.receiverReport(ssrc: ssrc, blocks: [])
            + RTCPBuilder.goodbye(ssrc: ssrc)),
        at: Net.time(500))
    }
    for (offset, ssrc) in ssrcs.enumerated() {
      let stream = try XCTUnwrap(analyzer.stream(ssrc))
      XCTAssertEqual(stream.feedback.goodbyeTime, offset % 2 == 0 ? Net.time(500) : nil)
    }
  }

  /// Issue 39: a REMB of 2.4e24 bit/s (mantissa 2^18 - 1, exponent 63) was taken and shown.
  /// Beyond 100 Gbit/s it is a decode error, never the pair's estimate; a sane one still is.
  func testAnImpossibleREMBIsADecodeErrorNotAnEstimate() throws {
    var analyzer = StreamAnalyzer()
    func remb(exponent: UInt32, mantissa: UInt32) -> [UInt8] {
      var body: [UInt8] = []
      body.appendBigEndian(UInt32(0xCCCC))
      body.appendBigEndian(UInt32(0))
      body.append(contentsOf: Array("REMB".utf8))
      body.appendBigEndian(UInt32(1) << 24 | exponent << 18 | mantissa)
      body.appendBigEndian(UInt32(0xAAAA))
      return RTCPBuilder.receiverReport(ssrc: 0xCCCC, blocks: [])
        + RTCPBuilder.packet(type: 206, count: 15, body: body)
    }
    // 1000 x 2^10 = 1,024,000 bit/s, then the widest the field holds.
    for (index, packet) in [
      remb(exponent: 10, mantissa: 1000), remb(exponent: 63, mantissa: 0x3FFFF),
    ]
    .enumerated() {
      analyzer.feed(
        PacketBuilder.frame(source: Net.aliceRTCP, destination: Net.bobRTCP, payload: packet),
        at: Net.time(Double(index) * 1000))
    }
    let report = analyzer.report()
    XCTAssertEqual(report.capture.decodeErrors, ["rtcp_feedback": 1])
    let counts = try XCTUnwrap(report.feedbackByPair.values.first)
    XCTAssertEqual(counts.estimateMessages, 1)
    XCTAssertEqual(counts.lastEstimateBitsPerSecond, 1_024_000)
  }

  func testRTCPLengthPastThePacketIsADecodeError() {
    var analyzer = StreamAnalyzer()
    var rr = RTCPBuilder.receiverReport(ssrc: 0x1111, blocks: [])
    rr[3] = 9
    analyzer.feed(
      PacketBuilder.frame(source: Net.aliceRTCP, destination: Net.bobRTCP, payload: rr),
      at: Net.time(0))
    let report = analyzer.report()
    XCTAssertEqual(report.capture.decodeErrors, ["rtcp_length": 1])
    XCTAssertEqual(report.capture.rtcpPackets, 0)
  }

  func testRTPInsideTURNChannelDataIsUnwrapped() throws {
    var analyzer = StreamAnalyzer()
    for index in 0..<30 {
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: 0x7E57)
      var channelData: [UInt8] = [0x40, 0x01]
      channelData.appendBigEndian(UInt16(rtp.count))
      channelData += rtp
      analyzer.feed(
        PacketBuilder.frame(
          source: Net.alice, destination: Net.endpoint("203.0.113.5", 3478), payload: channelData),
        at: Net.time(Double(index) * 20))
    }
    let report = analyzer.report()
    XCTAssertEqual(report.capture.turnChannelDataPackets, 30)
    let stream = try XCTUnwrap(report.streams.first)
    XCTAssertEqual(stream.key.ssrc, 0x7E57)
    XCTAssertEqual(stream.key.destination.port, 3478)
    XCTAssertEqual(stream.packets, 30)
    XCTAssertEqual(stream.payloadBytes, 30 * 160)
  }

  /// Issue 39: "INVI" reads as ChannelData channel 0x494E of 22,089 bytes, so a UDP INVITE of
  /// 22 KB or more was taken for TURN ChannelData and never counted as SIP.
  func testALargeSIPRequestOverUDPIsSIPNotChannelData() throws {
    var analyzer = StreamAnalyzer()
    let invite = SessionDescriptionTests.invite
    let headers = invite[..<invite.range(of: "Content-Length")!.lowerBound]
    let body =
      invite[invite.range(of: "\r\n\r\n")!.upperBound...] + "a=x-pad:"
      + String(repeating: "x", count: 30_000) + "\r\n"
    let message = Array((headers + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    XCTAssertGreaterThan(message.count, 4 + 0x5649, "past the length \"VI\" reads as")
    analyzer.feed(
      PacketBuilder.frame(
        source: Net.endpoint("192.0.2.10", 5060), destination: Net.endpoint("192.0.2.20", 5060),
        payload: message), at: Net.time(0))
    let capture = analyzer.report().capture
    XCTAssertEqual(capture.turnChannelDataPackets, 0)
    XCTAssertEqual(capture.sipMessagesWithSDP, 1)
  }

  /// DTLS is counted however it travels: a WebRTC call relayed by TURN carries its handshake
  /// and its close_notify inside ChannelData (RFC 8656 section 12.4).
  func testDTLSInsideTURNChannelDataIsCountedAsDTLS() throws {
    var analyzer = StreamAnalyzer()
    // RFC 6347 section 4.1 records: four handshake records (content type 22) of epoch 0, then
    // two encrypted alerts (21) of epoch 1, each in ChannelData on channel 0x4000.
    let handshake: [UInt8] =
      [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, 0, 12] + Array(repeating: 1, count: 12)
    let alert: [UInt8] =
      [21, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 26] + Array(repeating: 0x5A, count: 26)
    for (index, record) in (Array(repeating: handshake, count: 4) + [alert, alert]).enumerated() {
      var channelData: [UInt8] = [0x40, 0x00]
      channelData.appendBigEndian(UInt16(record.count))
      channelData += record
      analyzer.feed(
        PacketBuilder.frame(
          source: Net.alice, destination: Net.endpoint("203.0.113.5", 3478), payload: channelData),
        at: Net.time(Double(index) * 20))
    }
    // And one at the top level.
    analyzer.feed(
      PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: handshake),
      at: Net.time(200))
    let capture = analyzer.report().capture
    XCTAssertEqual(capture.turnChannelDataPackets, 6)
    XCTAssertEqual(capture.dtlsPackets, 7)
    XCTAssertEqual(capture.dtlsAlerts, 2)
  }

  func testSDPSuppliesTheClockRateOfADynamicPayloadType() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedInvite()
    analyzer.feedAudio(
      from: Net.endpoint("192.0.2.20", 30_000), to: Net.endpoint("192.0.2.10", 40_000),
      ssrc: 0x0905, payloadType: 111, count: 3, clockRate: 48_000)
    let stream = try XCTUnwrap(analyzer.stream(0x0905))
    // Its destination was announced in SDP: RTP from the first packet, no probation needed.
    XCTAssertEqual(stream.confirmation, .sdp)
    XCTAssertEqual(stream.clockRateHz, 48_000)
    XCTAssertEqual(stream.clockRateSource, .sdp)
    XCTAssertEqual(stream.encodingName, "opus")
    XCTAssertEqual(analyzer.report().capture.sipMessagesWithSDP, 1)
  }

  func testSignalledMediaIsForgottenOnceNoLiveStreamUsesIt() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedInvite()
    // 10 s of the announced call (500 packets from 0 to 9.98 s).
    analyzer.feedAudio(
      from: Net.endpoint("192.0.2.20", 30_000), to: Net.endpoint("192.0.2.10", 40_000),
      ssrc: 0x0906, payloadType: 111, count: 500, clockRate: 48_000)
    let announced = Net.endpoint("192.0.2.10", 40_000)
    XCTAssertNotNil(analyzer.signalledMedia[announced])
    // Signalled at 0, but its stream was live at 9.98 s: kept, and marked as used then.
    analyzer.forget(silentSince: Net.time(5000))
    XCTAssertEqual(analyzer.signalledMedia[announced]?.lastUsed, Net.time(9980))
    XCTAssertEqual(analyzer.liveStreamCount, 1)
    // The call is over and its stream forgotten: the SDP goes with it.
    analyzer.forget(silentSince: Net.time(20_000))
    XCTAssertEqual(analyzer.liveStreamCount, 0)
    XCTAssertTrue(analyzer.signalledMedia.isEmpty)
    // An offer whose call never came is forgotten as old (the capture clock, monotonic,
    // takes the offer stamped 0 as of the last packet, 9.98 s).
    analyzer.feedInvite()
    XCTAssertEqual(analyzer.signalledMedia.count, 2)
    analyzer.forget(silentSince: Net.time(9980))
    XCTAssertEqual(analyzer.signalledMedia.count, 2)
    analyzer.forget(silentSince: Net.time(9981))
    XCTAssertTrue(analyzer.signalledMedia.isEmpty)
  }

  func testTheHarvestBufferShrinksOnceAWaveOfStreamsIsForgotten() throws {
    var analyzer = StreamAnalyzer(
      configuration: .init(localNetworks: [try XCTUnwrap(NetworkPrefix("198.51.100.20/32"))]))
    // 5,000 calls of 3 packets each, from as many addresses, to Bob.
    for call in 0..<5000 {
      analyzer.feedAudio(
        from: Net.endpoint("10.\(call / 250).\(call % 250).1", 40_000), to: Net.bob,
        ssrc: UInt32(call + 1), count: 3, startMilliseconds: Double(call) * 0.01)
    }
    var harvest = StreamHarvest()
    analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(0))
    XCTAssertEqual(harvest.streams.count, 5000)
    // Silent for long: forgotten at this harvest, and the buffer goes with them at the next.
    analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(60_000))
    XCTAssertEqual(harvest.forgotten, 5000)
    analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(60_000))
    XCTAssertEqual(harvest.streams.count, 0)
    XCTAssertEqual(harvest.streams.chunkCount, 0)
  }

  /// A harvest handed back once scored (`recycle`) is filled again as a new one is, in the
  /// memory its lists already had: the agent's cut reuses it instead of faulting in new pages
  /// on the capture thread each tick.
  func testARecycledHarvestIsFilledAsANewOneInItsOwnMemory() throws {
    let local = try XCTUnwrap(NetworkPrefix("198.51.100.20/32"))
    // Twins fed alike: one harvests into recycled harvests, the other into new ones.
    var recycling = StreamAnalyzer(configuration: .init(localNetworks: [local]))
    var fresh = recycling
    for call in 0..<300 {
      let address = "10.0.\(call / 250).\(call % 250 + 1)"
      for analyzer in [0, 1] {
        func feed(_ analyzer: inout StreamAnalyzer) {
          analyzer.feedAudio(
            from: Net.endpoint(address, 40_000), to: Net.bob, ssrc: UInt32(call + 1), count: 3,
            startMilliseconds: Double(call) * 0.01)
          // A sender report and a picture loss indication: RTCP details, address facts and
          // feedback between the pair.
          let report =
            RTCPBuilder.senderReport(
              ssrc: UInt32(call + 1), ntpTimestamp: 0xE000_0000_8000_0000, rtpTimestamp: 480,
              packetCount: 3, octetCount: 480)
            + RTCPBuilder.pictureLossIndication(sender: UInt32(call + 1), media: 0xB0B)
          analyzer.feed(
            PacketBuilder.frame(
              source: Net.endpoint(address, 40_001), destination: Net.bobRTCP, payload: report),
            at: Net.time(100))
        }
        if analyzer == 0 { feed(&recycling) } else { feed(&fresh) }
      }
    }
    var first = recycling.takeSpareHarvest()
    recycling.harvest(into: &first, forgetSilentSince: Net.time(0))
    XCTAssertEqual(first.feedbacks.count, 300)
    XCTAssertEqual(first.addresses.count, 300)
    XCTAssertEqual(first.feedbackByPair.count, 300)
    let memory = first.feedbacks.withUnsafeBufferPointer { $0.baseAddress }
    recycling.recycle(&first)
    XCTAssertEqual(first.feedbacks.count, 0, "handed back: the caller's is left empty")
    XCTAssertEqual(recycling.spareHarvest?.feedbackByPair.isEmpty, true)
    var second = recycling.takeSpareHarvest()
    recycling.harvest(into: &second, forgetSilentSince: Net.time(0))
    XCTAssertEqual(second.feedbacks.withUnsafeBufferPointer { $0.baseAddress }, memory)
    var new = StreamHarvest()
    fresh.harvest(into: &new, forgetSilentSince: Net.time(0))
    new = StreamHarvest()
    fresh.harvest(into: &new, forgetSilentSince: Net.time(0))
    XCTAssertEqual(second.streams.count, 300)
    XCTAssertEqual(second.streams.map(\.key), new.streams.map(\.key))
    XCTAssertEqual(second.streams.map(\.counts.packets), new.streams.map(\.counts.packets))
    XCTAssertEqual(second.streams.map(\.feedbackIndex), new.streams.map(\.feedbackIndex))
    XCTAssertEqual(second.streams.map(\.peerFactsIndex), new.streams.map(\.peerFactsIndex))
    XCTAssertEqual(
      second.feedbacks.map(\.lastSenderRTCPTime), new.feedbacks.map(\.lastSenderRTCPTime))
    XCTAssertEqual(second.addresses.map(\.cadence?.last), new.addresses.map(\.cadence?.last))
    XCTAssertEqual(second.media.count, new.media.count)
    XCTAssertEqual(second.feedbackByPair, new.feedbackByPair)
    XCTAssertEqual(second.liveStreams, new.liveStreams)
    XCTAssertEqual(second.streamSlots, new.streamSlots)
    // Nothing handed back: a new harvest.
    XCTAssertEqual(recycling.takeSpareHarvest().feedbacks.capacity, 0)
  }

  /// Each stream's peer facts come from the slot its remote address's facts are in, remembered
  /// from harvest to harvest (`StreamAnalyzer.remoteFactsSlots`): after most peers left (their
  /// facts forgotten, the slots given back and packed), every stream left still reads its own
  /// peer's facts, and reads them anew when they change. With 2,000 peers the streams stay in
  /// place (the slots they remember are stale and must be checked); with 5,000 they are
  /// compacted too (`StreamAnalyzer.compactionMinimumSlots`).
  func testEachStreamReadsItsOwnPeersFactsAfterAWaveLeft() throws {
    let local = try XCTUnwrap(NetworkPrefix("198.51.100.20/32"))
    for peers in [2_000, 5_000] {
      var analyzer = StreamAnalyzer(configuration: .init(localNetworks: [local]))
      let kept = Set(stride(from: 0, to: peers, by: 10))
      func address(_ peer: Int) -> String { "10.1.\(peer / 250).\(peer % 250 + 1)" }
      func sendAudioAndReport(_ peer: Int, at milliseconds: Double, firstSequence: Int) {
        analyzer.feedAudio(
          from: Net.endpoint(address(peer), 40_000), to: Net.bob, ssrc: UInt32(peer + 1),
          count: 3, startMilliseconds: milliseconds, firstSequence: firstSequence)
        let report = RTCPBuilder.receiverReport(ssrc: UInt32(peer + 1), blocks: [])
        analyzer.feed(
          PacketBuilder.frame(
            source: Net.endpoint(address(peer), 40_001), destination: Net.bobRTCP,
            payload: report),
          at: Net.time(milliseconds + 100))
      }
      // Every stream of the harvest reads its own peer's last report.
      func checkFacts(_ harvest: StreamHarvest, streams: Int, reportOf: (Int) -> Double) {
        XCTAssertEqual(harvest.streams.count, streams, "\(peers) peers")
        for stream in harvest.streams {
          let peer = Int(stream.key.ssrc) - 1
          XCTAssertEqual(
            harvest.facts(at: stream.peerFactsIndex).cadence?.last, Net.time(reportOf(peer)),
            "\(peers) peers: peer \(peer)")
        }
      }
      for peer in 0..<peers {
        sendAudioAndReport(peer, at: Double(peer) * 0.01, firstSequence: 1_000)
      }
      var harvest = StreamHarvest()
      analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(0))
      checkFacts(harvest, streams: peers) { Double($0) * 0.01 + 100 }
      // A tenth go on; the rest leave, and their streams and facts are forgotten.
      for peer in kept {
        sendAudioAndReport(peer, at: 100_000 + Double(peer) * 0.01, firstSequence: 1_003)
      }
      analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(50_000))
      checkFacts(harvest, streams: peers) {
        (kept.contains($0) ? 100_000 : 0) + Double($0) * 0.01 + 100
      }
      XCTAssertEqual(harvest.remap.isEmpty, peers < StreamAnalyzer.compactionMinimumSlots)
      XCTAssertEqual(analyzer.addressesWithFacts, kept.count)
      analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(50_000))
      checkFacts(harvest, streams: kept.count) { 100_000 + Double($0) * 0.01 + 100 }
      // New reports: read anew through the remembered slots.
      for peer in kept {
        sendAudioAndReport(peer, at: 200_000 + Double(peer) * 0.01, firstSequence: 1_006)
      }
      analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(50_000))
      checkFacts(harvest, streams: kept.count) { 200_000 + Double($0) * 0.01 + 100 }
    }
  }

  func testTheHarvestKeepsRTCPDetailsAndAddressFactsBesideTheRecords() throws {
    var analyzer = StreamAnalyzer(
      configuration: .init(localNetworks: [try XCTUnwrap(NetworkPrefix("198.51.100.20/32"))]))
    // Alice sends two streams and Bob one back; only Bob's stream has RTCP (his sender report,
    // and Alice's receiver report about it, which gives Alice's address an RTCP cadence).
    analyzer.feedAudio(from: Net.alice, to: Net.bob, ssrc: 0xA1, count: 50)
    analyzer.feedAudio(from: Net.endpoint("192.0.2.10", 40_002), to: Net.bob, ssrc: 0xA2, count: 50)
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xB0B, count: 50)
    let ntp: UInt64 = 0xE000_0000_8000_0000
    let sr = RTCPBuilder.senderReport(
      ssrc: 0xB0B, ntpTimestamp: ntp, rtpTimestamp: 8000, packetCount: 50, octetCount: 8000)
    analyzer.feed(
      PacketBuilder.frame(source: Net.bobRTCP, destination: Net.aliceRTCP, payload: sr),
      at: Net.time(1000))
    let block = RTCPReportBlock(
      reporterSSRC: 0xA1, sourceSSRC: 0xB0B, fractionLost: 64, cumulativeLost: 3,
      extendedHighestSequence: 1049, jitter: 80, lastSR: UInt32(truncatingIfNeeded: ntp >> 16),
      delaySinceLastSR: UInt32(0.020 * 65_536))
    analyzer.feed(
      PacketBuilder.frame(
        source: Net.aliceRTCP, destination: Net.bobRTCP,
        payload: RTCPBuilder.receiverReport(ssrc: 0xA1, blocks: [block])),
      at: Net.time(1100))
    var harvest = StreamHarvest()
    analyzer.harvest(into: &harvest, forgetSilentSince: Net.time(0))
    XCTAssertEqual(harvest.streams.count, 3)
    let bySSRC = Dictionary(uniqueKeysWithValues: harvest.streams.map { ($0.key.ssrc, $0) })
    let (a1, a2, bob) = (
      try XCTUnwrap(bySSRC[0xA1]), try XCTUnwrap(bySSRC[0xA2]), try XCTUnwrap(bySSRC[0xB0B])
    )
    // One RTCP record, Bob's stream's; the others read as no RTCP.
    XCTAssertEqual(harvest.feedbacks.count, 1)
    let report = try XCTUnwrap(harvest.feedback(of: bob).lastReport)
    XCTAssertEqual(report.fractionLost, 64.0 / 256, accuracy: 1e-12)
    XCTAssertEqual(report.time, Net.time(1100))
    XCTAssertEqual(harvest.feedback(of: bob).lastSenderRTCPTime, Net.time(1000))
    XCTAssertNil(harvest.feedback(of: a1).lastReport)
    XCTAssertNil(harvest.feedback(of: a2).lastSenderRTCPTime)
    // Both addresses sent RTCP: each address's facts once, shared by its streams.
    XCTAssertEqual(harvest.addresses.count, 2)
    XCTAssertEqual(a1.peerFactsIndex, a2.peerFactsIndex)
    XCTAssertEqual(a1.peerFactsIndex, bob.peerFactsIndex)
    XCTAssertEqual(harvest.facts(at: a1.peerFactsIndex).cadence?.last, Net.time(1100))
    XCTAssertEqual(harvest.facts(at: bob.senderFactsIndex).cadence?.last, Net.time(1000))
    XCTAssertEqual(harvest.facts(at: a2.senderFactsIndex).cadence?.last, Net.time(1100))
    // The counts are the stream's own.
    XCTAssertEqual(a1.counts.packets, 50)
    XCTAssertEqual(a1.counts.expected, 50)
    XCTAssertEqual(a1.counts.counted, 50)
  }

  func testUnknownClockRateIsInferredAndSaidSo() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(
      ssrc: 0x0F05, payloadType: 111, count: 100, clockRate: 48_000,
      jitterMilliseconds: { $0 % 3 == 0 ? 2 : 0 })
    let stream = try XCTUnwrap(analyzer.stream(0x0F05))
    XCTAssertEqual(stream.clockRateHz, 48_000)
    XCTAssertEqual(stream.clockRateSource, .inferred)
    // Transit steps of 2 ms every third packet: the estimate settles well above zero.
    XCTAssertGreaterThan(try XCTUnwrap(stream.maxJitterSeconds), 0.0005)
    XCTAssertLessThan(try XCTUnwrap(stream.maxJitterSeconds), 0.002)
    // The rate found, the stream's inference buffer is given back (and with no stream left
    // inferring, the buffers' storage with it).
    XCTAssertEqual(analyzer.inferences.count, 0)
    XCTAssertEqual(analyzer.streams.map(\.inferenceSlot), [-1])
  }

  func testShortStreamOfUnknownRateInfersAtReportTime() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(ssrc: 0x5407, payloadType: 120, count: 8, clockRate: 48_000)
    // Still collecting: the stream holds one buffer.
    XCTAssertEqual(analyzer.inferences.count, 1)
    XCTAssertEqual(analyzer.streams.map(\.inferenceSlot), [0])
    let stream = try XCTUnwrap(analyzer.stream(0x5407))
    XCTAssertEqual(stream.clockRateSource, .inferred)
    XCTAssertEqual(stream.clockRateHz, 48_000)
    XCTAssertEqual(try XCTUnwrap(stream.maxJitterSeconds), 0, accuracy: 1e-9)
  }

  func testUnguessableClockRateGivesNoJitterRatherThanZero() throws {
    var analyzer = StreamAnalyzer()
    // Timestamps that do not advance with time: no rate fits.
    for index in 0..<40 {
      let rtp = PacketBuilder.rtp(
        payloadType: 100, sequenceNumber: UInt16(index), timestamp: 5000, ssrc: 0xE7)
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: rtp),
        at: Net.time(Double(index) * 50))
    }
    let stream = try XCTUnwrap(analyzer.stream(0xE7))
    XCTAssertEqual(stream.clockRateSource, .unknown)
    XCTAssertNil(stream.clockRateHz)
    XCTAssertNil(stream.maxJitterSeconds)
  }

  func testOnePacketStreamBesideAValidatedReverseStreamIsReported() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 0xB, count: 10)
    let single = PacketBuilder.rtp(payloadType: 0, sequenceNumber: 5, timestamp: 0, ssrc: 0xA)
    analyzer.feed(
      PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: single),
      at: Net.time(50))
    let stream = try XCTUnwrap(analyzer.stream(0xA))
    XCTAssertEqual(stream.confirmation, .flow)
    XCTAssertEqual(stream.packets, 1)
  }

  func testSnapLengthTruncatedPacketsStillCount() throws {
    var analyzer = StreamAnalyzer()
    for index in 0..<20 {
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: 0x5)
      let frame = PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: rtp)
      analyzer.feed(
        Array(frame[0..<60]), at: Net.time(Double(index) * 20), originalLength: frame.count)
    }
    let report = analyzer.report()
    let stream = try XCTUnwrap(report.streams.first)
    XCTAssertEqual(stream.packets, 20)
    XCTAssertEqual(stream.payloadBytes, 20 * 160)
    XCTAssertEqual(stream.truncatedPackets, 20)
    XCTAssertEqual(report.capture.truncated, 20)
  }

  func testLocalNetworksGiveDirections() throws {
    var analyzer = StreamAnalyzer(
      configuration: .init(localNetworks: [try XCTUnwrap(NetworkPrefix("192.0.2.0/24"))]))
    analyzer.feedAudio(from: Net.alice, to: Net.bob, ssrc: 1, count: 5)
    analyzer.feedAudio(from: Net.bob, to: Net.alice, ssrc: 2, count: 5)
    XCTAssertEqual(analyzer.stream(1)?.direction, .tx)
    XCTAssertEqual(analyzer.stream(2)?.direction, .rx)
  }

  func testStreamTableCapIsCountedNotExceeded() {
    var analyzer = StreamAnalyzer(configuration: .init(maxStreams: 3))
    for ssrc in UInt32(1)...5 { analyzer.feedAudio(ssrc: ssrc, count: 4) }
    let report = analyzer.report()
    XCTAssertEqual(report.streams.count, 3)
    XCTAssertEqual(report.capture.streamTableFull, 8)
  }

  func testTelephoneEventsDoNotFeedJitter() throws {
    var analyzer = StreamAnalyzer()
    analyzer.feedInvite()
    let source = Net.endpoint("192.0.2.20", 30_000)
    let destination = Net.endpoint("192.0.2.10", 40_000)
    for index in 0..<100 {
      // Every tenth packet is an RFC 4733 event that repeats its start timestamp.
      let isEvent = index % 10 == 5
      let rtp = PacketBuilder.rtp(
        payloadType: isEvent ? 101 : 111, sequenceNumber: UInt16(index),
        timestamp: UInt32(isEvent ? 0 : index * 960), ssrc: 0xE1, payloadLength: isEvent ? 4 : 80)
      analyzer.feed(
        PacketBuilder.frame(source: source, destination: destination, payload: rtp),
        at: Net.time(Double(index) * 20 + (isEvent ? 7 : 0)))
    }
    let stream = try XCTUnwrap(analyzer.stream(0xE1))
    XCTAssertEqual(stream.payloadTypes, [101, 111])
    XCTAssertEqual(try XCTUnwrap(stream.maxJitterSeconds), 0, accuracy: 1e-9)
  }
}

/// Packets the timing of a stream must not believe: far too late, a timestamp jump, a packet
/// stamped out of order by the capture clock.
final class StreamTimingResyncTests: XCTestCase {
  /// 60 s of G.711 from sequence 64,000 (it wraps at 65,536), 4 ms of arrival noise; `extra`
  /// packets (sequence, timestamp, milliseconds after start) are fed after packet `at`.
  func analyse(extra: [(sequence: Int, timestamp: Int, milliseconds: Double)] = [], at: Int = 0)
    -> StreamAnalyzer
  {
    var analyzer = StreamAnalyzer()
    var random = SplitMix64(seed: 5)
    for index in 0..<3000 {
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: 64_000 + index),
        timestamp: UInt32(index * 160), ssrc: 9)
      let noise = Double(random.next() % 4000) / 1000
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: rtp),
        at: Net.time(Double(index) * 20 + noise))
      if index == at {
        for packet in extra {
          let late = PacketBuilder.rtp(
            payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: packet.sequence),
            timestamp: UInt32(truncatingIfNeeded: packet.timestamp), ssrc: 9)
          analyzer.feed(
            PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: late),
            at: Net.time(packet.milliseconds))
        }
      }
    }
    return analyzer
  }

  func testAPacketAMinuteLateAfterAWrapFeedsNeitherLossNorJitter() throws {
    let reference = try XCTUnwrap(analyse().stream(9))
    // After the last packet (sequence 1,463 since the wrap), a copy of the first one
    // (64,000, 2,999 behind) arrives a minute late.
    let analyzer = analyse(extra: [(64_000, 0, 2999 * 20 + 5)], at: 2999)
    let stream = try XCTUnwrap(analyzer.stream(9))
    XCTAssertEqual(stream.lost, reference.lost)
    XCTAssertEqual(stream.expected, reference.expected)
    XCTAssertEqual(
      try XCTUnwrap(stream.maxJitterSeconds), try XCTUnwrap(reference.maxJitterSeconds),
      accuracy: 1e-12)
    XCTAssertEqual(stream.packets, reference.packets + 1)
    // Not counted as received either, so the window that saw it is not refunded any loss.
    XCTAssertEqual(analyzer.streams[0].counts.counted, reference.packets)
  }

  func testATimestampJumpNoArrivalExplainsRestartsTheJitter() throws {
    let reference = try XCTUnwrap(analyse().stream(9))
    var analyzer = StreamAnalyzer()
    var random = SplitMix64(seed: 5)
    for index in 0..<3000 {
      // From packet 1,500 the timestamp base jumps by two minutes of samples.
      let timestamp = index * 160 + (index >= 1500 ? 960_000 : 0)
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: 64_000 + index),
        timestamp: UInt32(timestamp), ssrc: 9)
      let noise = Double(random.next() % 4000) / 1000
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: rtp),
        at: Net.time(Double(index) * 20 + noise))
    }
    let stream = try XCTUnwrap(analyzer.stream(9))
    XCTAssertEqual(
      try XCTUnwrap(stream.maxJitterSeconds) * 1000,
      try XCTUnwrap(reference.maxJitterSeconds) * 1000, accuracy: 0.1)
    XCTAssertEqual(stream.lost, 0)
  }

  func testAPacketStampedAnHourEarlyIsAClockStepNotJitterOrAGap() throws {
    let reference = try XCTUnwrap(analyse().stream(9))
    // Packet 1,501 of the stream, stamped an hour before its neighbours, in its place.
    var analyzer = StreamAnalyzer()
    var random = SplitMix64(seed: 5)
    for index in 0..<3000 {
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: 64_000 + index),
        timestamp: UInt32(index * 160), ssrc: 9)
      let noise = Double(random.next() % 4000) / 1000
      let early = index == 1501 ? -3_600_000.0 : 0
      analyzer.feed(
        PacketBuilder.frame(source: Net.alice, destination: Net.bob, payload: rtp),
        at: Net.time(Double(index) * 20 + noise + early))
    }
    let report = analyzer.report()
    let stream = try XCTUnwrap(analyzer.stream(9))
    XCTAssertEqual(report.capture.outOfOrderTimestamps, 1)
    XCTAssertEqual(report.capture.clockSteps, 0)
    XCTAssertLessThan(stream.maxDeltaSeconds, 0.05)
    XCTAssertEqual(
      try XCTUnwrap(stream.maxJitterSeconds) * 1000,
      try XCTUnwrap(reference.maxJitterSeconds) * 1000, accuracy: 2)
    XCTAssertLessThan(try XCTUnwrap(stream.maxJitterSeconds) * 1000, 10)
    XCTAssertEqual(stream.lost, 0)
  }
}
