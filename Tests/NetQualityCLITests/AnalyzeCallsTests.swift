import Foundation
import XCTest

/// `analyze --calls` on the shared captures that carry SIP agrees with tshark 4.0.17's SIP
/// dissector: the same Call-IDs (one call each), the same final status to the INVITE, an end
/// reason that matches the BYE's sender, and the streams bound by the calls' SDP. The expected
/// table is what `python3 e2e/calls/calls_tshark.py CAPTURE AGENT.json` builds from
/// `tshark -Y sip -T fields -e sip.Call-ID -e sip.Method -e sip.Status-Code -e sip.CSeq.method`.
extension CommandLineTests {
  /// Call-ID: final status (nil: none), end reason, streams bound.
  struct ExpectedCall: Equatable, CustomStringConvertible {
    var status: Int?
    var endReason: String
    var streams: Int

    var description: String { "\(status.map(String.init) ?? "-") \(endReason) \(streams)" }
  }

  static let sipCaptures: [String: [String: ExpectedCall]] = [
    "heplify_rtp_rtcp_sip_ipv4_udp.pcap": [
      "12013223@200.57.7.195": .init(status: 200, endReason: "capture_end", streams: 2),
      "12015624@200.57.7.195": .init(status: nil, endReason: "capture_end", streams: 0),
    ],
    // The INVITE precedes the capture; SIP over TCP.
    "rtpdump_sample2_vowifi_amr.pcap": [
      "2402d3856-79e2a9e3@186.196.183.115": .init(
        status: 200, endReason: "capture_end", streams: 1)
    ],
    "wsk_SIP_DTMF2.pcap": [
      "25672@192.168.105.110": .init(status: 200, endReason: "capture_end", streams: 2),
      "5514@192.168.105.110": .init(status: 603, endReason: "rejected", streams: 0),
    ],
    // 407 challenges, one answered with credentials 51 s later; a cancelled INVITE the server
    // ends with 408.
    "wsk_aaa.pcap": [
      "105090259-446faf7a@192.168.1.2": .init(status: 408, endReason: "rejected", streams: 0),
      "11894297-4432a9f8@192.168.1.2": .init(status: 480, endReason: "rejected", streams: 1),
      "24487391-449bf2a0@192.168.1.2": .init(status: 403, endReason: "rejected", streams: 0),
      "85216695-42dcdb1d@192.168.1.2": .init(status: 403, endReason: "rejected", streams: 0),
    ],
    // Its one stream is between two ports of the local address: no peer, no call's stream.
    "wsk_h263-over-rtp.pcap": [
      "NmNhYWNhMjY0Y2M0OTc4YTI2MzgzZTNlYTRhZTMxNTE.": .init(
        status: 200, endReason: "capture_end", streams: 0)
    ],
    "wsk_nb6-telephone.pcap": [
      "1135D8701739D86@10.251.23.139": .init(status: 200, endReason: "bye_caller", streams: 2)
    ],
    "wsk_sip-rtp-g726.pcap": Dictionary(
      uniqueKeysWithValues: [2134, 2137, 2138, 2139, 2140, 2141, 2142, 2143].map {
        ("1-\($0)@10.0.2.20", ExpectedCall(status: 200, endReason: "bye_callee", streams: 1))
      }),
    "wsk_sip-rtp-g729a.pcap": [
      "1-24411@10.0.2.20": .init(status: 200, endReason: "bye_callee", streams: 1)
    ],
    "wsk_sip-rtp-opus.pcap": [
      "1-4237@10.0.2.20": .init(status: 200, endReason: "bye_callee", streams: 1)
    ],
    "wsk_sip-rtp-speex.pcap": Dictionary(
      uniqueKeysWithValues: [4245, 4247, 4248].map {
        ("1-\($0)@10.0.2.20", ExpectedCall(status: 200, endReason: "bye_callee", streams: 1))
      }),
  ]

  func testAnalyzeCallsAgreesWithTsharkOnTheSharedSIPCaptures() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../../shared/pcaps").standardized
    guard FileManager.default.fileExists(atPath: folder.path) else {
      throw XCTSkip("no shared captures at \(folder.path)")
    }
    for (name, expected) in Self.sipCaptures.sorted(by: { $0.key < $1.key }) {
      let path = folder.appendingPathComponent(name).path
      guard FileManager.default.fileExists(atPath: path) else { continue }
      let result = try run(["analyze", "--calls", "--format", "json", path])
      XCTAssertEqual(result.status, 0, "\(name): \(result.standardError)")
      let document = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
      let calls = try XCTUnwrap(document["calls"] as? [[String: Any]])
      var found: [String: ExpectedCall] = [:]
      for call in calls where call["kind"] as? String == "sip" {
        let callID = try XCTUnwrap(call["call_id"] as? String)
        XCTAssertNil(found[callID], "\(name): \(callID) is more than one call")
        found[callID] = ExpectedCall(
          status: call["final_status"] as? Int, endReason: call["end_reason"] as? String ?? "",
          streams: call["stream_count"] as? Int ?? -1)
      }
      XCTAssertEqual(found, expected, name)
    }
  }
}
