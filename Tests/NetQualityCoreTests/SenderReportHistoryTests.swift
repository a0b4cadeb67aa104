import XCTest

@testable import NetQualityCore

final class SenderReportHistoryTests: XCTestCase {
  /// RR arrival − SR arrival − DLSR: a DLSR rounded up by a receiver's millisecond clock gives
  /// a slightly negative result, which is a round trip of about 0; far below 0 is a wrong pair.
  func testNearZeroRoundTripsCountAsZeroAndImpossibleOnesAreDropped() {
    var history = SenderReportHistory()
    history.add(compactNTP: 0x1234_5678, arrivalNanoseconds: 1_000_000_000)
    let dlsr = UInt32(65536 / 2)  // 0.5 s held by the receiver
    func roundTrip(arrivingAfterSeconds seconds: Double) -> Double? {
      history.roundTripSeconds(
        lastSR: 0x1234_5678, delaySinceLastSR: dlsr,
        arrivalNanoseconds: 1_000_000_000 + Int64(seconds * 1e9))
    }
    XCTAssertEqual(try XCTUnwrap(roundTrip(arrivingAfterSeconds: 0.6)), 0.1, accuracy: 1e-9)
    XCTAssertEqual(roundTrip(arrivingAfterSeconds: 0.5 - 0.0003), 0)
    XCTAssertNil(roundTrip(arrivingAfterSeconds: 0.5 - 0.002))
    XCTAssertNil(
      history.roundTripSeconds(
        lastSR: 0x0BAD_0BAD, delaySinceLastSR: dlsr, arrivalNanoseconds: 2_000_000_000))
  }
}
