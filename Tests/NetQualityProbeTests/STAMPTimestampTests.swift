import NetQualityCore
import XCTest

@testable import NetQualityProbe

final class STAMPTimestampTests: XCTestCase {
  /// 2036-02-07T06:28:16Z: NTP era 1 begins (2^32 s after 1900-01-01).
  let era1StartUnixSeconds: Int64 = 2_085_978_496
  /// 2025-01-01T00:00:00Z.
  let newYear2025 = CaptureTime(seconds: 1_735_689_600, nanoseconds: 0)

  func time(_ seconds: Int64, _ nanoseconds: Int64 = 0) -> CaptureTime {
    CaptureTime(seconds: seconds, nanoseconds: nanoseconds)
  }

  func testUnixEpochIsNTPSeconds2208988800() {
    let stamp = STAMPTimestamp(ntp: .zero)
    XCTAssertEqual(stamp.seconds, 2_208_988_800)
    XCTAssertEqual(stamp.subseconds, 0)
    XCTAssertEqual(stamp.ntpTime(near: newYear2025), .zero)
  }

  func testKnownDateEncodesToItsNTPSeconds() {
    // 1,735,689,600 + 2,208,988,800 = 3,944,678,400 = 0xEB1F0400.
    let stamp = STAMPTimestamp(ntp: newYear2025.advanced(byNanoseconds: 500_000_000))
    XCTAssertEqual(stamp.rawValue, 0xEB1F_0400_8000_0000)
    XCTAssertEqual(
      stamp.ntpTime(near: newYear2025), newYear2025.advanced(byNanoseconds: 500_000_000))
  }

  func testEra1BeginsAtSecondsZero() {
    let stamp = STAMPTimestamp(ntp: time(era1StartUnixSeconds, 500_000_000))
    XCTAssertEqual(stamp.seconds, 0)
    XCTAssertEqual(stamp.subseconds, 0x8000_0000)
  }

  func testDecodingPicksTheEraNearestTheReference() {
    let lastSecondOfEra0 = STAMPTimestamp(seconds: 0xFFFF_FFFF, subseconds: 0)
    let firstSecondOfEra1 = STAMPTimestamp(seconds: 0, subseconds: 0)
    let justBefore = time(era1StartUnixSeconds - 1)
    let justAfter = time(era1StartUnixSeconds + 1)
    // Either side of the boundary, both stamps land on the right second.
    for reference in [justBefore, justAfter] {
      XCTAssertEqual(lastSecondOfEra0.ntpTime(near: reference), time(era1StartUnixSeconds - 1))
      XCTAssertEqual(firstSecondOfEra1.ntpTime(near: reference), time(era1StartUnixSeconds))
    }
    // From 2025, a small seconds field is in era 1 (2036), not 1900.
    XCTAssertEqual(
      STAMPTimestamp(seconds: 5, subseconds: 0).ntpTime(near: newYear2025),
      time(era1StartUnixSeconds + 5))
    // Round trips across the boundary.
    for offset: Int64 in [-3_600, -1, 0, 1, 3_600, 86_400 * 365] {
      let moment = time(era1StartUnixSeconds + offset, 123_456_789)
      XCTAssertEqual(STAMPTimestamp(ntp: moment).ntpTime(near: newYear2025), moment)
    }
  }

  func testFractionRoundsToNearestBothWays() {
    XCTAssertEqual(STAMPTimestamp.ntpFraction(nanoseconds: 0), 0)
    // 1 ns = 4.294967296 fraction units: rounds to 4.
    XCTAssertEqual(STAMPTimestamp.ntpFraction(nanoseconds: 1), 4)
    XCTAssertEqual(STAMPTimestamp.ntpFraction(nanoseconds: 500_000_000), 0x8000_0000)
    XCTAssertEqual(STAMPTimestamp.ntpFraction(nanoseconds: 999_999_999), 4_294_967_292)
    XCTAssertEqual(STAMPTimestamp.nanoseconds(ntpFraction: 0x8000_0000), 500_000_000)
    // 2 units = 0.466 ns: rounds to 0; 3 units = 0.698 ns: rounds to 1.
    XCTAssertEqual(STAMPTimestamp.nanoseconds(ntpFraction: 2), 0)
    XCTAssertEqual(STAMPTimestamp.nanoseconds(ntpFraction: 3), 1)
    // The largest fraction is 0.99999999977 s: the nearest nanosecond is the next second,
    // which decoding carries.
    XCTAssertEqual(STAMPTimestamp.nanoseconds(ntpFraction: .max), 1_000_000_000)
    XCTAssertEqual(
      STAMPTimestamp(seconds: 0xEB1F_0400, subseconds: .max).ntpTime(near: newYear2025),
      newYear2025.advanced(byNanoseconds: 1_000_000_000))
  }

  func testNanosecondsSurviveARoundTrip() {
    for nanoseconds: Int64 in [0, 1, 2, 3, 233, 499_999_999, 500_000_001, 999_999_998, 999_999_999]
    {
      let fraction = STAMPTimestamp.ntpFraction(nanoseconds: nanoseconds)
      XCTAssertEqual(STAMPTimestamp.nanoseconds(ntpFraction: fraction), nanoseconds)
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<10_000 {
      let nanoseconds = Int64.random(in: 0..<1_000_000_000, using: &generator)
      let fraction = STAMPTimestamp.ntpFraction(nanoseconds: nanoseconds)
      XCTAssertEqual(STAMPTimestamp.nanoseconds(ntpFraction: fraction), nanoseconds)
    }
  }

  func testPTPTruncatedFormatCountsTAISecondsAndNanoseconds() {
    let moment = newYear2025.advanced(byNanoseconds: 123_456_789)
    let stamp = STAMPTimestamp(ptp: moment)
    XCTAssertEqual(Int64(stamp.seconds), 1_735_689_600 + 37)
    XCTAssertEqual(stamp.subseconds, 123_456_789)
    XCTAssertEqual(stamp.ptpTime(near: newYear2025), moment)
    XCTAssertEqual(stamp.time(format: .ptp, near: newYear2025), moment)
    let utc = STAMPTimestamp(ptp: moment, taiMinusUTCSeconds: 0)
    XCTAssertEqual(Int64(utc.seconds), 1_735_689_600)
    XCTAssertEqual(utc.ptpTime(near: newYear2025, taiMinusUTCSeconds: 0), moment)
  }

  func testPTPNanosecondsOutOfRangeDecodeToNil() {
    let stamp = STAMPTimestamp(seconds: 1_735_689_637, subseconds: 1_000_000_000)
    XCTAssertNil(stamp.ptpTime(near: newYear2025))
  }

  func testPTPSecondsWrapIn2106() {
    // 2^32 s after 1970 (TAI): 2106-02-07T06:28:16 TAI.
    let wrap = time(4_294_967_296 - 37)
    let stamp = STAMPTimestamp(ptp: wrap.advanced(byNanoseconds: 5))
    XCTAssertEqual(stamp.seconds, 0)
    XCTAssertEqual(stamp.ptpTime(near: wrap), wrap.advanced(byNanoseconds: 5))
  }
}
