import NetQualityCore
import XCTest

@testable import NetQualityProbe

final class TokenBucketTests: XCTestCase {
  let start = CaptureTime(seconds: 1_000, nanoseconds: 0)

  func testBurstThenRate() {
    var bucket = TokenBucket(ratePerSecond: 10, burst: 3, now: start)
    XCTAssertEqual((0..<5).map { _ in bucket.take(at: start) }, [true, true, true, false, false])
    // 0.1 s brings one token at 10/s.
    XCTAssertFalse(bucket.take(at: start.advanced(bySeconds: 0.05)))
    XCTAssertTrue(bucket.take(at: start.advanced(bySeconds: 0.1)))
    XCTAssertFalse(bucket.take(at: start.advanced(bySeconds: 0.1)))
    // A long pause refills to the burst, no further.
    let later = start.advanced(bySeconds: 60)
    XCTAssertEqual((0..<4).map { _ in bucket.take(at: later) }, [true, true, true, false])
  }

  func testClockSteppingBackRefillsNothing() {
    var bucket = TokenBucket(ratePerSecond: 10, burst: 1, now: start)
    XCTAssertTrue(bucket.take(at: start))
    XCTAssertFalse(bucket.take(at: start.advanced(bySeconds: -100)))
    XCTAssertFalse(bucket.take(at: start.advanced(bySeconds: -99.95)))
    XCTAssertTrue(bucket.take(at: start.advanced(bySeconds: -99.9)))
  }
}
