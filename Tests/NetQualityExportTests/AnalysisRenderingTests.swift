import Foundation
import NetQualityCore
import XCTest

@testable import NetQualityExport

final class AnalysisRenderingTests: XCTestCase {
  func testFixedDecimalsRound() {
    XCTAssertEqual(DecimalText.fixed(0.829, places: 2), "0.83")
    XCTAssertEqual(DecimalText.fixed(12.0, places: 1), "12.0")
    XCTAssertEqual(DecimalText.fixed(0.005, places: 3), "0.005")
    XCTAssertEqual(DecimalText.fixed(-1.25, places: 1), "-1.3")
    XCTAssertEqual(DecimalText.fixed(-0.01, places: 1), "0.0")
    XCTAssertEqual(DecimalText.fixed(1234.5, places: 0), "1235")
  }

  func testTableColumnsLineUp() {
    let lines = AnalysisTable.layout([
      ["A", "BB", "C", "D", "N"], ["long", "x", "y", "z", "12345"],
    ])
    XCTAssertEqual(lines, ["A     BB  C  D      N", "long  x   y  z  12345"])
  }

  func testEmptyReportStillSummarisesTheCapture() throws {
    var capture = CaptureCounters()
    capture.frames = 3
    capture.udpDatagrams = 2
    capture.nonRTPUDP = 2
    let report = AnalysisReport(capture: capture, streams: [])
    let table = AnalysisTable.render(report, file: "x.pcap")
    XCTAssertTrue(table.contains("x.pcap: 0 RTP stream(s)"))
    XCTAssertTrue(table.contains("capture: 3 packets, 2 UDP, 0 RTP, 0 RTCP, 2 other UDP"))
    let json = try AnalysisJSON.render(report, file: "x.pcap", readError: "truncated dump file")
    let document = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    XCTAssertEqual((document["streams"] as? [Any])?.count, 0)
    XCTAssertEqual(document["read_error"] as? String, "truncated dump file")
    XCTAssertEqual((document["capture"] as? [String: Any])?["packets"] as? Int, 3)
  }
}
