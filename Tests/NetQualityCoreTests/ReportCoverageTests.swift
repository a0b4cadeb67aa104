import XCTest

@testable import NetQualityCore

/// What a receiver report covers beyond the one before it (RFC 3550 section 6.4.1, A.3).
final class ReportCoverageTests: XCTestCase {
  func testCoveredIsTheAdvanceOfTheHighestSequenceAndLostOfTheCumulativeCount() {
    let coverage = ReportCoverage(from: (1_499, 15), to: (1_749, 17))
    XCTAssertEqual(coverage, ReportCoverage(packets: 250, lost: 2))
    XCTAssertEqual(coverage.lossRatio, 0.008, accuracy: 1e-12)
  }

  /// A held sender: the sequence did not move, whatever else the report says.
  func testAReportWhoseSequenceDidNotAdvanceCoversNothing() {
    let coverage = ReportCoverage(from: (1_499, 15), to: (1_499, 15))
    XCTAssertEqual(coverage, ReportCoverage(packets: 0, lost: 0))
    XCTAssertEqual(coverage.lossRatio, 0)
  }

  func testTheExtendedSequenceWrapsAt32Bits() {
    XCTAssertEqual(
      ReportCoverage(from: (0xFFFF_FFF0, 5), to: (0x0000_0010, 7)),
      ReportCoverage(packets: 32, lost: 2))
  }

  /// A receiver that restarted its count goes back: nothing covered. Duplicates lower the
  /// cumulative count (never negative loss); a count past what was covered is clamped.
  func testBackwardsSequencesAndCountsAreNeverNegativeNorBeyondTheCovered() {
    XCTAssertEqual(
      ReportCoverage(from: (5_000, 3), to: (100, 0)), ReportCoverage(packets: 0, lost: 0))
    XCTAssertEqual(
      ReportCoverage(from: (100, 9), to: (150, 4)), ReportCoverage(packets: 50, lost: 0))
    XCTAssertEqual(
      ReportCoverage(from: (100, 0), to: (110, 40)), ReportCoverage(packets: 10, lost: 10))
    // The 24-bit extremes of the cumulative count.
    XCTAssertEqual(
      ReportCoverage(from: (0, -8_388_608), to: (1_000, 8_388_607)),
      ReportCoverage(packets: 1_000, lost: 1_000))
  }
}
