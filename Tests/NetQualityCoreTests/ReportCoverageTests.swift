import XCTest

@testable import NetQualityCore

/// What a receiver report covers beyond the one before it (RFC 3550 section 6.4.1, A.3).
final class ReportCoverageTests: XCTestCase {
  func testCoveredIsTheAdvanceOfTheHighestSequenceAndLostOfTheCumulativeCount() throws {
    let coverage = ReportCoverage(from: (1_499, 15), to: (1_749, 17), packetsSent: 250)
    XCTAssertEqual(coverage, ReportCoverage(packets: 250, lost: 2))
    XCTAssertEqual(try XCTUnwrap(coverage).lossRatio, 0.008, accuracy: 1e-12)
  }

  /// A held sender: the sequence did not move, whatever else the report says.
  func testAReportWhoseSequenceDidNotAdvanceCoversNothing() throws {
    let coverage = try XCTUnwrap(ReportCoverage(from: (1_499, 15), to: (1_499, 15), packetsSent: 0))
    XCTAssertEqual(coverage, ReportCoverage(packets: 0, lost: 0))
    XCTAssertEqual(coverage.lossRatio, 0)
  }

  func testTheExtendedSequenceWrapsAt32Bits() {
    XCTAssertEqual(
      ReportCoverage(from: (0xFFFF_FFF0, 5), to: (0x0000_0010, 7), packetsSent: 32),
      ReportCoverage(packets: 32, lost: 2))
  }

  /// A receiver that restarted its count goes back: the pair is no interval. Duplicates lower
  /// the cumulative count (never negative loss); a count past what was covered is clamped.
  func testBackwardsSequencesAndCountsAreNeverNegativeNorBeyondTheCovered() {
    XCTAssertNil(ReportCoverage(from: (5_000, 3), to: (100, 0), packetsSent: 100))
    XCTAssertEqual(
      ReportCoverage(from: (100, 9), to: (150, 4), packetsSent: 50),
      ReportCoverage(packets: 50, lost: 0))
    XCTAssertEqual(
      ReportCoverage(from: (100, 0), to: (110, 40), packetsSent: 10),
      ReportCoverage(packets: 10, lost: 10))
    // The 24-bit extremes of the cumulative count.
    XCTAssertEqual(
      ReportCoverage(from: (0, -8_388_608), to: (1_000, 8_388_607), packetsSent: 1_000),
      ReportCoverage(packets: 1_000, lost: 1_000))
  }

  /// The sequence may run ahead of the packets the capture saw sent by up to MAX_DROPOUT
  /// (RFC 3550 A.1: packets the capture missed, a burst lost at the end of the previous
  /// interval), not further: the SR blocks of heplify_rtp_rtcp_sip_ipv4_udp.pcap.
  func testASequenceFarAheadOfWhatWasSentIsNoInterval() {
    XCTAssertEqual(
      ReportCoverage(from: (11_332, 0), to: (11_332 + 250 + 3_000, 0), packetsSent: 250)?.packets,
      3_250)
    XCTAssertNil(ReportCoverage(from: (11_332, 0), to: (11_332 + 250 + 3_001, 0), packetsSent: 250))
    XCTAssertNil(ReportCoverage(from: (3, 0), to: (262_148, 0), packetsSent: 250))
  }

  /// A block that ran ahead is left out: the next is read against the last plausible one, and
  /// its fraction lost, jitter and time are not taken.
  func testFeedbackReadsTheNextBlockAgainstTheLastPlausibleOne() throws {
    func block(_ highest: UInt32, lost: Int32 = 0, fraction: UInt8 = 0) -> RTCPReportBlock {
      RTCPReportBlock(
        reporterSSRC: 1, sourceSSRC: 2, fractionLost: fraction, cumulativeLost: lost,
        extendedHighestSequence: highest, jitter: 80, lastSR: 0, delaySinceLastSR: 0)
    }
    func at(_ seconds: Int64) -> CaptureTime {
      CaptureTime(nanosecondsSinceEpoch: seconds * 1_000_000_000)
    }
    var feedback = ReceptionFeedback()
    XCTAssertTrue(feedback.record(block(11_332), at: at(5), streamPackets: 250))
    XCTAssertNil(feedback.lastCoverage)
    XCTAssertFalse(feedback.record(block(262_148, fraction: 255), at: at(10), streamPackets: 500))
    XCTAssertEqual(feedback.reportBlocks, 1)
    XCTAssertEqual(feedback.lastReportTime, at(5))
    XCTAssertEqual(feedback.lastFractionLost, 0)
    XCTAssertTrue(feedback.record(block(11_582, lost: 5), at: at(10), streamPackets: 500))
    XCTAssertEqual(feedback.lastCoverage, ReportCoverage(packets: 250, lost: 5))
    // A receiver that restarted: its block is taken, its coverage unknown.
    XCTAssertTrue(feedback.record(block(40, fraction: 64), at: at(15), streamPackets: 750))
    XCTAssertNil(feedback.lastCoverage)
    XCTAssertEqual(feedback.lastFractionLost, 0.25)
    XCTAssertEqual(feedback.reportBlocks, 3)
  }
}
