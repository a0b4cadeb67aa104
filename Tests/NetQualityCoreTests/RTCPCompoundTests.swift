import NetQualitySynth
import XCTest

@testable import NetQualityCore

/// Collects what the parser hands out.
private struct Recorder: RTCPVisitor {
  var types: [UInt8] = []
  var senders: [RTCPSenderInfo] = []
  var blocks: [RTCPReportBlock] = []
  var names: [UInt32: String] = [:]
  var byes: [UInt32] = []
  var feedback: [RTCPFeedback] = []
  var metrics: [RTCPVoIPMetrics] = []

  mutating func packet(type: UInt8) { types.append(type) }
  mutating func senderInfo(_ info: RTCPSenderInfo) { senders.append(info) }
  mutating func reportBlock(_ block: RTCPReportBlock) { blocks.append(block) }
  mutating func canonicalName(ssrc: UInt32, text: UnsafeRawBufferPointer) {
    names[ssrc] = String(decoding: text, as: UTF8.self)
  }
  mutating func goodbye(ssrc: UInt32) { byes.append(ssrc) }
  mutating func feedback(_ message: RTCPFeedback) { feedback.append(message) }
  mutating func voipMetrics(_ metrics: RTCPVoIPMetrics) { self.metrics.append(metrics) }
}

final class RTCPCompoundTests: XCTestCase {
  private func parse(_ bytes: [UInt8]) -> (Bool, Recorder) {
    var recorder = Recorder()
    let ok = bytes.withUnsafeBytes { RTCPCompound.parse($0, visitor: &recorder) }
    return (ok, recorder)
  }

  private let block = RTCPReportBlock(
    reporterSSRC: 0, sourceSSRC: 0xAAAA, fractionLost: 64, cumulativeLost: -3,
    extendedHighestSequence: 70_000, jitter: 123, lastSR: 0x1234_5678, delaySinceLastSR: 65_536)

  func testSenderReportWithBlockAndSDES() {
    let compound =
      RTCPBuilder.senderReport(
        ssrc: 0xBBBB, ntpTimestamp: 0x0102_0304_0506_0708, rtpTimestamp: 99, packetCount: 10,
        octetCount: 1600, blocks: [block])
      + RTCPBuilder.sourceDescription(ssrc: 0xBBBB, canonicalName: "bob@example")
    let (ok, recorder) = parse(compound)
    XCTAssertTrue(ok)
    XCTAssertEqual(recorder.types, [200, 202])
    XCTAssertEqual(recorder.senders.first?.compactNTP, 0x0304_0506)
    XCTAssertEqual(recorder.senders.first?.packetCount, 10)
    var expected = block
    expected.reporterSSRC = 0xBBBB
    XCTAssertEqual(recorder.blocks, [expected])
    XCTAssertEqual(recorder.blocks.first?.cumulativeLost, -3)
    XCTAssertEqual(recorder.names[0xBBBB], "bob@example")
  }

  func testReceiverReportByeAndFeedback() {
    let compound =
      RTCPBuilder.receiverReport(ssrc: 0xCCCC, blocks: [block])
      + RTCPBuilder.genericNACK(sender: 0xCCCC, media: 0xAAAA, packetID: 100, bitmask: 0b1011)
      + RTCPBuilder.pictureLossIndication(sender: 0xCCCC, media: 0xAAAA)
      + RTCPBuilder.goodbye(ssrc: 0xCCCC)
    let (ok, recorder) = parse(compound)
    XCTAssertTrue(ok)
    XCTAssertEqual(recorder.types, [201, 205, 206, 203])
    XCTAssertEqual(recorder.byes, [0xCCCC])
    XCTAssertEqual(recorder.feedback.map(\.kind), [.nack(packets: 4), .pli])
    XCTAssertEqual(recorder.feedback.first?.mediaSSRC, 0xAAAA)
  }

  func testREMBAndFIR() {
    var remb: [UInt8] = []
    remb.appendBigEndian(UInt32(0xCCCC))
    remb.appendBigEndian(UInt32(0))
    remb.append(contentsOf: Array("REMB".utf8))
    // One SSRC, exponent 3, mantissa 1000: 8000 bit/s.
    remb.appendBigEndian(UInt32(1) << 24 | UInt32(3) << 18 | 1000)
    remb.appendBigEndian(UInt32(0xAAAA))
    var fir: [UInt8] = []
    fir.appendBigEndian(UInt32(0xCCCC))
    fir.appendBigEndian(UInt32(0))
    fir.appendBigEndian(UInt32(0xDDDD))
    fir.appendBigEndian(UInt32(7) << 24)
    let compound =
      RTCPBuilder.packet(type: 206, count: 15, body: remb)
      + RTCPBuilder.packet(type: 206, count: 4, body: fir)
    let (ok, recorder) = parse(compound)
    XCTAssertTrue(ok)
    XCTAssertEqual(recorder.feedback.map(\.kind), [.remb(bitsPerSecond: 8000), .fir])
    XCTAssertEqual(recorder.feedback.map(\.mediaSSRC), [0xAAAA, 0xDDDD])
  }

  func testExtendedReportVoIPMetrics() {
    let compound =
      RTCPBuilder.receiverReport(ssrc: 0xCCCC, blocks: [])
      + RTCPBuilder.voipMetrics(
        reporter: 0xCCCC, source: 0xAAAA, lossRate: 13, mosLQ: 41, roundTripMilliseconds: 85)
    let (ok, recorder) = parse(compound)
    XCTAssertTrue(ok)
    XCTAssertEqual(recorder.metrics.count, 1)
    XCTAssertEqual(recorder.metrics.first?.sourceSSRC, 0xAAAA)
    XCTAssertEqual(recorder.metrics.first?.lossRate, 13)
    XCTAssertEqual(recorder.metrics.first?.mosLQ, 41)
    XCTAssertEqual(recorder.metrics.first?.roundTripDelayMilliseconds, 85)
  }

  func testLengthRunningPastThePacketIsRejected() {
    var report = RTCPBuilder.receiverReport(ssrc: 0xCCCC, blocks: [block])
    report[3] = 40  // claims 164 bytes
    XCTAssertEqual(report.withUnsafeBytes(RTCPCompound.framing), .invalid)
    let (ok, recorder) = parse(report)
    XCTAssertFalse(ok)
    XCTAssertTrue(recorder.types.isEmpty)
  }

  func testSRTCPTrailerIsRecognisedButNotParsed() {
    // RFC 3711 section 3.4: E flag + index and a 10-byte authentication tag follow the packet.
    let srtcp =
      RTCPBuilder.receiverReport(ssrc: 0xCCCC, blocks: [block]) + [0x80, 0, 0, 1]
      + Array(repeating: 0x5A, count: 10)
    XCTAssertEqual(srtcp.withUnsafeBytes(RTCPCompound.framing), .firstHeaderOnly)
    XCTAssertFalse(parse(srtcp).0)
  }

  func testFewStrayBytesAfterACompoundAreTolerated() {
    let padded = RTCPBuilder.receiverReport(ssrc: 0xCCCC, blocks: [block]) + [0, 0]
    XCTAssertEqual(padded.withUnsafeBytes(RTCPCompound.framing), .compound(coveredBytes: 32))
    XCTAssertEqual(parse(padded).1.blocks.count, 1)
  }
}
