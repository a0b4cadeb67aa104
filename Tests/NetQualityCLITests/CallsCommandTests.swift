import Foundation
import XCTest

/// `netquality calls` over the history `analyze --db` writes: the same records `analyze
/// --calls` gives for the captures (one story offline, live and after the fact), found again
/// by Call-ID, user, status, failure and quality, and wrong filters refused with a reason.
extension HistoryRoundTripTests {
  static let callCaptures = [
    "heplify_rtp_rtcp_sip_ipv4_udp.pcap", "wsk_SIP_DTMF2.pcap", "wsk_aaa.pcap",
    "wsk_nb6-telephone.pcap", "wsk_sip-rtp-g726.pcap",
  ]

  func testTheHistoryHoldsTheRecordsAnalyzeCallsGives() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../../shared/pcaps").standardized
    guard FileManager.default.fileExists(atPath: folder.path) else {
      throw XCTSkip("no shared captures at \(folder.path)")
    }
    let database = directory.appendingPathComponent("calls.db").path
    var expected: [String: [String: Any]] = [:]
    for name in Self.callCaptures {
      let path = folder.appendingPathComponent(name).path
      let analysed = try run(["analyze", "--calls", "--format", "json", path])
      XCTAssertEqual(analysed.status, 0, analysed.standardError)
      let document = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(analysed.standardOutput.utf8)) as? [String: Any])
      for call in try XCTUnwrap(document["calls"] as? [[String: Any]]) {
        expected[try XCTUnwrap(call["id"] as? String)] = call
      }
      let written = try run(["analyze", path, "--db", database])
      XCTAssertEqual(written.status, 0, written.standardError)
    }
    func calls(_ arguments: [String]) throws -> [[String: Any]] {
      let result = try run(
        ["calls", "--db", database, "--from", "0", "--format", "json"] + arguments)
      XCTAssertEqual(result.status, 0, result.standardError)
      return try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]],
        result.standardOutput)
    }
    let all = try calls([])
    XCTAssertEqual(Set(all.compactMap { $0["id"] as? String }), Set(expected.keys))
    XCTAssertEqual(all.count, expected.count, "one row per call")
    for call in all {
      let id = try XCTUnwrap(call["id"] as? String)
      XCTAssertEqual(
        call as NSDictionary, expected[id].map { $0 as NSDictionary }, "the record of \(id)")
    }
    // Oldest end first.
    let ends = all.compactMap { $0["end"] as? Double }
    XCTAssertEqual(ends, ends.sorted())

    func ids(_ arguments: [String]) throws -> Set<String> {
      Set(try calls(arguments).compactMap { $0["call_id"] as? String })
    }
    func expectedIDs(_ include: ([String: Any]) -> Bool) -> Set<String> {
      Set(expected.values.filter(include).compactMap { $0["call_id"] as? String })
    }
    XCTAssertEqual(
      try ids(["--failed"]), expectedIDs { $0["failed"] as? Bool == true })
    XCTAssertEqual(
      try ids(["--status", "4xx"]),
      expectedIDs { ($0["final_status"] as? Int).map { (400...499).contains($0) } ?? false })
    XCTAssertEqual(try ids(["--status", "603"]), ["5514@192.168.105.110"])
    XCTAssertEqual(
      try ids(["--call-id", "1135D8701739D86@10.251.23.139"]), ["1135D8701739D86@10.251.23.139"])
    XCTAssertEqual(
      try ids(["--user", "2504"]), expectedIDs { $0["to_user"] as? String == "2504" })
    XCTAssertFalse(try ids(["--user", "2504"]).isEmpty)
    XCTAssertEqual(try ids(["--kind", "webrtc"]), [])
    let levels = ["unknown", "excellent", "good", "poor", "bad", "very_bad", "down"]
    func worst(_ call: [String: Any]) -> Int {
      ["rx", "tx"].map { direction in
        levels.firstIndex(of: (call[direction] as? [String: Any])?["worst_level"] as? String ?? "")
          ?? 0
      }.max() ?? 0
    }
    let poorOrWorse = try calls(["--quality", "poor"])
    XCTAssertEqual(poorOrWorse.count, expected.values.filter { worst($0) >= 3 }.count)
    XCTAssertTrue(poorOrWorse.allSatisfy { worst($0) >= 3 })
    let worstTwo = try calls(["--worst", "--limit", "2"])
    XCTAssertEqual(worstTwo.count, 2)
    XCTAssertEqual(
      worstTwo.map(worst), Array(expected.values.map(worst).sorted(by: >).prefix(2)))
    // A range with none of them: an empty array, not an error.
    XCTAssertEqual(try calls(["--to", "1"]).count, 0)

    let table = try run(["calls", "--db", database, "--from", "0", "--status", "603"])
    XCTAssertEqual(table.status, 0, table.standardError)
    let lines = table.standardOutput.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, table.standardOutput)
    XCTAssertTrue(lines[0].hasPrefix("START"), table.standardOutput)
    XCTAssertEqual(
      lines[1].split(separator: " ", omittingEmptySubsequences: true).prefix(7),
      ["2005-09-09", "12:03:01Z", "sip", "5514@192.168.105.110", "2502", "2504", "603"],
      table.standardOutput)
    let csv = try run(["calls", "--db", database, "--from", "0", "--failed", "--format", "csv"])
    XCTAssertEqual(
      csv.standardOutput.split(separator: "\n").count,
      1 + expectedIDs { $0["failed"] as? Bool == true }.count)
  }

  func testWrongCallFiltersAreRefusedWithAReason() throws {
    let capture = directory.appendingPathComponent("call.pcap").path
    let database = directory.appendingPathComponent("history.db").path
    XCTAssertEqual(
      try run(["generate", "-o", capture, "--streams", "1", "--packets", "200", "--seed", "3"])
        .status, 0)
    XCTAssertEqual(
      try run(["analyze", capture, "--local", "10.10.0.0/16", "--db", database]).status, 0)
    for (arguments, message) in [
      (["--status", "9xx"], "--status 9xx: a code from 100 to 699 or a class"),
      (["--status", "99"], "--status 99: a code from 100 to 699 or a class"),
      (["--quality", "awful"], "--quality awful: use excellent, good, poor, bad, very_bad, down"),
      (["--kind", "skype"], "--kind skype: use sip, webrtc or media"),
    ] {
      let result = try run(["calls", "--db", database, "--from", "0"] + arguments)
      XCTAssertEqual(result.status, 2, "\(arguments)")
      XCTAssertTrue(
        result.standardError.hasPrefix("netquality: error: \(message)"), result.standardError)
    }
    // The generated capture's one stream is one media call.
    let media = try run(["calls", "--db", database, "--from", "0", "--format", "csv"])
    XCTAssertEqual(media.standardOutput.split(separator: "\n").count, 2, media.standardOutput)
    XCTAssertTrue(media.standardOutput.contains(",media,"), media.standardOutput)
  }
}
