import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// Asserts that a report equals, peer by peer, the tallies of the script's ticks whose minute
/// starts in [from, to), with the worst minutes ranked by hand; disconnects and alerts fired
/// per peer when given.
func assertReportEqualsTally(
  _ report: HistoryReport, _ script: TickScript, from: Double, to: Double,
  disconnects: [Int]? = nil, alerts: [Int]? = nil, _ label: String,
  file: StaticString = #filePath, line: UInt = #line
) {
  let firstMinute = (from / 60).rounded(.up) * 60
  let endMinute = (to / 60).rounded(.up) * 60
  XCTAssertEqual(report.peers.map(\.peer), script.peerNames, label, file: file, line: line)
  for (index, peer) in report.peers.enumerated() {
    let context = "\(label) \(peer.peer)"
    let tally = ScriptTally(
      script, peer: index, ticks: script.ticks(from: firstMinute, to: endMinute))
    XCTAssertEqual(peer.seconds, tally.seconds, context, file: file, line: line)
    XCTAssertEqual(peer.txLevelSeconds, tally.txLevelSeconds, context, file: file, line: line)
    XCTAssertEqual(peer.rxLevelSeconds, tally.rxLevelSeconds, context, file: file, line: line)
    XCTAssertEqual(peer.txMOSMin, tally.txMOS.min, context, file: file, line: line)
    XCTAssertEqual(peer.rxMOSMin, tally.rxMOS.min, context, file: file, line: line)
    XCTAssertEqual(peer.rttMaxMilliseconds, tally.roundTrip.max, context, file: file, line: line)
    let averages: [(Double?, Double?, String)] = [
      (peer.txMOSAverage, tally.txMOS.average, "tx MOS"),
      (peer.rxMOSAverage, tally.rxMOS.average, "rx MOS"),
      (peer.txLossAverage, tally.txLoss.average, "tx loss"),
      (peer.rxLossAverage, tally.rxLoss.average, "rx loss"),
      (peer.rttAverageMilliseconds, tally.roundTrip.average, "rtt"),
    ]
    for (reported, expected, name) in averages {
      XCTAssertEqual(
        try XCTUnwrap(reported), try XCTUnwrap(expected), accuracy: 1e-9,
        "\(context) \(name) average", file: file, line: line)
    }
    XCTAssertEqual(peer.rxPackets, tally.rxPackets, context, file: file, line: line)
    XCTAssertEqual(peer.rxLost, tally.rxLost, context, file: file, line: line)
    XCTAssertEqual(peer.txPackets, tally.txPackets, context, file: file, line: line)
    if let disconnects {
      XCTAssertEqual(peer.disconnects, disconnects[index], context, file: file, line: line)
    }
    if let alerts {
      XCTAssertEqual(peer.alertsFired, alerts[index], context, file: file, line: line)
    }
    let worst = script.minutesWorstFirst(peer: index, from: firstMinute, to: endMinute).prefix(
      HistoryReport.worstWindowCount)
    XCTAssertEqual(
      peer.worstWindows.map(\.minute), worst.map(\.minute), context, file: file, line: line)
    XCTAssertEqual(
      peer.worstWindows.map(\.rxLevel.rawValue), worst.map(\.tally.rxLevelMax), context,
      file: file, line: line)
    XCTAssertEqual(
      peer.worstWindows.map(\.mosMin), worst.map(\.tally.worstKey.mos), context, file: file,
      line: line)
    XCTAssertEqual(
      peer.worstWindows.map(\.rxLossMax), worst.map(\.tally.rxLoss.max), context, file: file,
      line: line
    )
  }
}
