import XCTest

@testable import NetQualityCore

/// A stream's baseline keeps 32 bits of each count and still gives every window's change
/// exactly, whatever the totals (past 2^32 too), falls included.
final class StreamBaselineTests: XCTestCase {
  static func counts(_ packets: Int64, expected: Int64, counted: Int64, bytes: Int64)
    -> StreamCounts
  {
    var counts = StreamCounts()
    counts.packets = packets
    counts.expected = expected
    counts.counted = counted
    counts.payloadBytes = bytes
    counts.late = packets / 100
    return counts
  }

  func testWindowsAreExactPastThirtyTwoBitsAndWhenACountFalls() {
    var baseline = StreamBaseline()
    let first = baseline.advance(
      to: Self.counts(100, expected: 102, counted: 100, bytes: 16_000))
    XCTAssertEqual(
      [first.packets, first.expected, first.counted, first.payloadBytes, first.late],
      [100, 102, 100, 16_000, 1])
    // Totals far past 2^32 (a long-lived stream, or a restart's extended numbers): the change
    // from one window to the next is what it is.
    let big: Int64 = 5_000_000_000
    _ = baseline.advance(to: Self.counts(big, expected: big + 7, counted: big, bytes: big * 160))
    let window = baseline.advance(
      to: Self.counts(
        big + 250, expected: big + 7 + 252, counted: big + 249, bytes: big * 160 + 40_000))
    XCTAssertEqual(window.packets, 250)
    XCTAssertEqual(window.expected, 252)
    XCTAssertEqual(window.counted, 249)
    XCTAssertEqual(window.payloadBytes, 40_000)
    XCTAssertEqual(window.late, 2)
    // Crossing a multiple of 2^32 inside a window.
    let edge: Int64 = 1 << 32
    _ = baseline.advance(
      to: Self.counts(edge - 10, expected: edge - 10, counted: edge - 10, bytes: 0))
    let across = baseline.advance(
      to: Self.counts(edge + 15, expected: edge + 15, counted: edge + 15, bytes: 0))
    XCTAssertEqual(across.packets, 25)
    XCTAssertEqual(across.expected, 25)
    // A count that falls (expected recomputed lower) gives a negative change, not 4 billion.
    let fallen = baseline.advance(
      to: Self.counts(edge + 15, expected: edge + 10, counted: edge + 15, bytes: 0))
    XCTAssertEqual(fallen.expected, -5)
    XCTAssertEqual(fallen.packets, 0)
  }
}
