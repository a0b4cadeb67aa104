import Foundation
import NetQualityCore
import NetQualitySynth
import XCTest

/// Classic pcap's seconds are unsigned 32-bit (to 2106), and a record's sub-second field can
/// be out of range: `analyze` reads the one as the file holds it and counts the other.
extension CommandLineTests {
  /// A perfect call (two G.711 streams with RTCP, 60 s) from 00:00 UTC on January 1 of `year`,
  /// as a microsecond pcap; `extra` adds records after the call's.
  func perfectCall(year: Int, extra: (inout PcapWriter) -> Void = { _ in }) throws -> String {
    let startSeconds: [Int: Int64] = [
      2026: 1_767_225_600, 2039: 2_177_452_800, 2105: 4_260_211_200,
    ]
    let start = CaptureTime(seconds: try XCTUnwrap(startSeconds[year]), nanoseconds: 0)
    var writer = PcapWriter()
    SyntheticTraffic(streams: 2, totalPackets: 6000, start: start).generate { frame, time in
      writer.append(frame, at: time)
    }
    extra(&writer)
    let url = directory.appendingPathComponent("call-\(year)-\(UUID().uuidString).pcap")
    try Data(writer.bytes).write(to: url)
    return url.path
  }

  /// What `analyze` prints of `path` in `mode`, with the file's name and the year taken out.
  func analysis(_ path: String, _ mode: [String], year: Int) throws -> String {
    let result = try run(["analyze", path, "--local", "10.10.0.0/16"] + mode)
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertEqual(result.standardError, "")
    return result.standardOutput.replacing(path, with: "FILE").replacing(
      "\(year)-01-01T", with: "YEAR-01-01T")
  }

  func testACallDatedAfter2038AnalysesLikeTheSameCallIn2026() throws {
    let base = try perfectCall(year: 2026)
    for mode in [[], ["--timeline"]] {
      let expected = try analysis(base, mode, year: 2026)
      for year in [2039, 2105] {
        let late = try perfectCall(year: year)
        XCTAssertEqual(try analysis(late, mode, year: year), expected, "\(year) \(mode)")
      }
    }
    // What the 2026 call is: no jitter, a timeline of 30 ticks of one peer each way.
    let table = try analysis(base, [], year: 2026)
    XCTAssertTrue(table.contains("0.00/0.00"), table)
    XCTAssertTrue(table.contains("0 bad timestamps"), table)
    let timeline = try analysis(base, ["--timeline"], year: 2026).split(separator: "\n")
    // The header, the connected event and a tick every 2 s for the minute.
    XCTAssertEqual(timeline.count, 32, timeline.joined(separator: "\n"))
    let ticks = timeline.filter { $0.hasPrefix("YEAR-01-01T") && $0.contains(" connected ") }
    XCTAssertEqual(ticks.count, 30)
    XCTAssertTrue(ticks.allSatisfy { $0.contains("connected    excellent") }, "\(ticks)")
    let json = try run(["analyze", try perfectCall(year: 2105), "--format", "json"]).standardOutput
    let document = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let stream = try XCTUnwrap((document["streams"] as? [[String: Any]])?.first)
    XCTAssertEqual(try XCTUnwrap(stream["first_time"] as? Double), 4_260_211_200, accuracy: 0.1)
  }

  /// Issue 39: such a record was left out, so that a tenth of them made a perfect stream lose
  /// 10 %. It is counted and analysed at the latest record's time: here a copy of the call's
  /// first packet, it is one late packet of its stream — no loss, no jitter, the same timeline.
  func testARecordWithAnImpossibleMicrosecondFieldIsCountedAndAnalysedAtTheLatestTime() throws {
    let clean = try perfectCall(year: 2026)
    // A copy of the call's first RTP packet, stamped in the middle of the call with 1.5 s as
    // its microseconds.
    var first: [UInt8] = []
    SyntheticTraffic(streams: 2, totalPackets: 1).generate { frame, _ in first = frame }
    let damaged = try perfectCall(year: 2026) { writer in
      writer.append(first, seconds: 1_767_225_630, fraction: 1_500_000)
    }
    let table = try analysis(damaged, [], year: 2026)
    let tx = try XCTUnwrap(table.split(separator: "\n").first { $0.contains(" tx ") })
    XCTAssertTrue(
      tx.contains("3001  0 (0.0%)    0     1  0.00/0.00"), "one more packet, late: \(tx)")
    XCTAssertTrue(table.contains(", 1 bad timestamps"), table)
    XCTAssertTrue(try analysis(clean, [], year: 2026).contains(", 0 bad timestamps"))
    XCTAssertEqual(
      try analysis(damaged, ["--timeline"], year: 2026),
      try analysis(clean, ["--timeline"], year: 2026))
    let json = try run(["analyze", damaged, "--format", "json"]).standardOutput
    let document = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let capture = try XCTUnwrap(document["capture"] as? [String: Any])
    XCTAssertEqual(capture["bad_timestamp_records"] as? Int, 1)
    let cleanJSON = try run(["analyze", clean, "--format", "json"]).standardOutput
    let cleanDocument = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(cleanJSON.utf8)) as? [String: Any])
    let cleanCapture = try XCTUnwrap(cleanDocument["capture"] as? [String: Any])
    XCTAssertEqual(cleanCapture["bad_timestamp_records"] as? Int, 0)
    XCTAssertEqual(
      capture["packets"] as? Int, (cleanCapture["packets"] as? Int).map { $0 + 1 },
      "analysed, not left out")
  }
}
