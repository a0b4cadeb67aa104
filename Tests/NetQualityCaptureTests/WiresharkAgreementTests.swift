import Foundation
import NetQualityCapture
import NetQualityCore
import XCTest

/// Every stream tshark 4.0.17 finds in the shared captures, compared with ours: same key, same
/// packet count, same loss where the stream has no duplicates or reordering, max jitter within
/// max(0.01 ms, 1 %) where tshark computed one. Where tshark is wrong, our own value is asserted
/// and the reason given.
final class WiresharkAgreementTests: XCTestCase {
  /// Streams where tshark's jitter is an artefact. Wireshark (ui/tap-rtp-analysis.c) skips RFC
  /// 4733 telephone-event packets for jitter but still moves its "previous arrival" to them, so
  /// the next audio packet's transit difference spans the event's offset: 23.397 and 15.767 ms
  /// out of nothing. Replaying tshark's own per-packet fields (frame.time_relative,
  /// rtp.timestamp, rtp.p_type) through its algorithm reproduces both figures exactly; leaving
  /// the events out altogether, as RFC 3550 A.8 intends for a different payload format, gives
  /// the values below, which are ours.
  static let eventJitterMilliseconds: [String: Double] = [
    "10.0.0.51:4000 -> 10.0.0.45:10866 0x34D01D16": 6.775,  // asterisk_ulaw-2013785496.pcap
    "192.168.105.172:4376 -> 192.168.105.110:4376 0x5711BF84": 0.0154,  // wsk_SIP_DTMF2.pcap
  ]

  func testEveryTsharkStreamAgrees() throws {
    let captures: [URL]
    do {
      captures = try SharedCaptures.referenced()
    } catch {
      throw XCTSkip("shared captures not found at \(SharedCaptures.folder.path): \(error)")
    }
    guard !captures.isEmpty else {
      throw XCTSkip("no tshark references in \(SharedCaptures.folder.path)")
    }
    var compared = 0
    for capture in captures {
      let name = capture.lastPathComponent
      let reference = TsharkStream.parse(
        try String(contentsOf: capture.appendingPathExtension("tshark.txt"), encoding: .utf8))
      XCTAssertFalse(reference.isEmpty, "\(name): no streams parsed from the reference")
      let reader = try PcapFileReader(path: capture.path)
      var analyzer = StreamAnalyzer()
      XCTAssertEqual(reader.feed(&analyzer), .endOfFile, name)
      let report = analyzer.report()
      var ours: [String: StreamReport] = [:]
      for stream in report.streams {
        ours[
          "\(stream.key.source) -> \(stream.key.destination) \(SSRCFormat.text(stream.key.ssrc))"] =
          stream
      }
      for expected in reference {
        compared += 1
        guard let stream = ours.removeValue(forKey: expected.key) else {
          XCTFail("\(name): tshark's stream \(expected.key) is missing")
          continue
        }
        let context = "\(name) \(expected.key)"
        XCTAssertEqual(stream.packets, expected.packets, "packets, \(context)")
        if expected.lost >= 0 && stream.duplicates == 0 && stream.reordered == 0 {
          XCTAssertEqual(stream.lost, expected.lost, "lost, \(context)")
        } else if expected.lost < 0 {
          // tshark's Lost is expected - received, so duplicates make it negative (rtpproxy
          // dups.a: -1, SIPp's DTMF end packet sent three times: -2). Loss is never negative:
          // we count them as duplicates and report no loss.
          XCTAssertEqual(stream.lost, 0, "lost, \(context)")
          XCTAssertEqual(stream.duplicates, -expected.lost, "duplicates, \(context)")
        }
        guard expected.hasJitter else { continue }
        let ourJitter = try XCTUnwrap(stream.maxJitterSeconds, "no jitter for \(context)") * 1000
        if let own = Self.eventJitterMilliseconds[expected.key] {
          XCTAssertEqual(ourJitter, own, accuracy: max(0.0001, own * 0.01), "jitter, \(context)")
        } else {
          let tolerance = max(0.01, expected.maxJitterMilliseconds * 0.01)
          XCTAssertEqual(
            ourJitter, expected.maxJitterMilliseconds, accuracy: tolerance, "jitter, \(context)")
        }
      }
      XCTAssertEqual(ours.keys.sorted(), [], "\(name): streams tshark does not list")
    }
    XCTAssertGreaterThanOrEqual(compared, 98, "fewer reference streams than the 28 captures hold")
  }

  /// Where tshark gives no jitter (dynamic payload type, no SDP), ours comes from an inferred
  /// clock and says so: never a silent zero.
  func testDynamicPayloadTypesWithoutSDPInferTheirClock() throws {
    let opus = try analyse("asterisk_opus-2013785496.pcap")
    let stream = try XCTUnwrap(opus.streams.first)
    XCTAssertEqual(stream.clockRateSource, .inferred)
    XCTAssertEqual(stream.clockRateHz, 48_000)
    XCTAssertLessThan(try XCTUnwrap(stream.maxJitterSeconds), 0.02)
  }

  /// The H.265 sample's timestamps advance at about 1 MHz (11.885 s of arrivals, 11.895 M
  /// ticks), no RTP clock rate: the rate stays unknown and no jitter is made up.
  func testAnUnusualClockIsLeftUnknown() throws {
    let video = try analyse("tau_wilson_h265.pcap")
    let stream = try XCTUnwrap(video.streams.first)
    XCTAssertEqual(stream.clockRateSource, .unknown)
    XCTAssertNil(stream.clockRateHz)
    XCTAssertNil(stream.maxJitterSeconds)
    XCTAssertEqual(stream.packets, 407)
  }

  private func analyse(_ name: String) throws -> AnalysisReport {
    let capture = SharedCaptures.folder.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: capture.path) else {
      throw XCTSkip("\(capture.path) not found")
    }
    let reader = try PcapFileReader(path: capture.path)
    var analyzer = StreamAnalyzer()
    XCTAssertEqual(reader.feed(&analyzer), .endOfFile)
    return analyzer.report()
  }

  /// RTP relayed in TURN ChannelData and Data indications is unwrapped (tshark: udp:stun:rtp).
  func testTURNRelayedOpusIsFound() throws {
    let report = try analyse("srtpdec_udp_call_02_03_client.pcap")
    XCTAssertEqual(report.streams.map(\.packets).sorted(), [1571, 1600])
    XCTAssertGreaterThan(report.capture.turnChannelDataPackets, 3000)
    XCTAssertTrue(
      report.streams.allSatisfy { $0.clockRateHz == 48_000 && $0.clockRateSource == .inferred })
  }

  /// The SIP call through a B2BUA has SR/RR both ways: round trips come out of LSR/DLSR.
  func testRoundTripFromRTCPInTheHeplifyCall() throws {
    let withRoundTrip = try analyse("heplify_rtp_rtcp_sip_ipv4_udp.pcap").streams.filter {
      $0.feedback.roundTrip.samples > 0
    }
    XCTAssertFalse(withRoundTrip.isEmpty)
    for stream in withRoundTrip {
      // The tap sits next to the relay on a LAN: round trips of a few milliseconds at most.
      XCTAssertLessThan(try XCTUnwrap(stream.feedback.roundTrip.maxSeconds), 0.05, "\(stream.key)")
      XCTAssertGreaterThan(stream.feedback.reportBlocks, 0)
    }
  }
}
