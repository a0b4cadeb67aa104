import NetQualityCore

/// Which of the two timestamp formats a STAMP timestamp field holds: the Z flag of the Error
/// Estimate that travels with it (RFC 8762 section 4.2.1).
public enum STAMPTimestampFormat: Sendable, Hashable {
  /// Z = 0: the 64-bit NTP format of RFC 5905 section 6.
  case ntp
  /// Z = 1: the truncated PTPv2 format of IEEE 1588v2 (32-bit seconds, 32-bit nanoseconds).
  case ptp
}

/// A 64-bit STAMP timestamp field as it travels (RFC 8762 section 4.2.1), in either format.
///
/// **NTP** (RFC 5905 section 6, Figure 3): the high 32 bits count seconds since
/// 1900-01-01T00:00:00Z modulo 2^32, the low 32 bits are a binary fraction of a second. The
/// seconds wrap every 2^32 s (about 136 years): era 0 ends and era 1 begins at
/// 2036-02-07T06:28:16Z. The field does not say its era, so decoding takes a reference time and
/// picks the era that puts the result nearest to it (RFC 5905 section 6: "the correct era …
/// can be determined if the times are known to within 68 years").
///
/// **PTP** (truncated IEEE 1588v2): the high 32 bits count seconds since the PTP epoch
/// 1970-01-01T00:00:00 TAI modulo 2^32 (wrapping in 2106), the low 32 bits are nanoseconds
/// (0 ..< 10^9). PTP counts TAI, which runs `taiMinusUTCSeconds` ahead of the UTC that
/// `CaptureTime` (the Unix clock) counts.
///
/// **Rounding**: nanoseconds become an NTP fraction rounded to the nearest 2^-32 s, and an NTP
/// fraction becomes nanoseconds rounded to the nearest nanosecond (half up). A fraction step
/// (about 0.23 ns) is finer than a nanosecond, so nanoseconds → fraction → nanoseconds is exact.
public struct STAMPTimestamp: Hashable, Sendable {
  /// The 64 bits in host order, as read from (and written to) the wire big-endian.
  public var rawValue: UInt64

  public init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  public init(seconds: UInt32, subseconds: UInt32) {
    rawValue = UInt64(seconds) << 32 | UInt64(subseconds)
  }

  /// The high 32 bits: seconds modulo 2^32 since the format's epoch.
  public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }

  /// The low 32 bits: an NTP fraction (units of 2^-32 s) or PTP nanoseconds.
  public var subseconds: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

  /// Seconds from 1900-01-01 (the NTP prime epoch) to 1970-01-01 (the Unix epoch): RFC 5905
  /// section 6, Figure 4 (2,208,988,800).
  public static let ntpSecondsAtUnixEpoch: Int64 = 2_208_988_800

  /// TAI − UTC since 2017-01-01 (IERS Bulletin C 52; no leap second has been announced since):
  /// the offset between the PTP timescale and the Unix clock.
  public static let taiMinusUTCSecondsSince2017: Int64 = 37

  private static let nanosecondsPerSecond: Int64 = 1_000_000_000

  // MARK: NTP

  /// The NTP timestamp of `time` (era folded away, fraction rounded to nearest).
  public init(ntp time: CaptureTime) {
    let (wholeSeconds, nanoseconds) = Self.split(time)
    let ntpSeconds = wholeSeconds + Self.ntpSecondsAtUnixEpoch
    self.init(
      seconds: UInt32(truncatingIfNeeded: ntpSeconds),
      subseconds: Self.ntpFraction(nanoseconds: nanoseconds))
  }

  /// This NTP timestamp as a time, in the era that puts it nearest to `reference` (a time known
  /// to be within 68 years of the true one, such as now). A time before 1970 comes out as the
  /// Unix epoch (`CaptureTime` cannot say earlier).
  public func ntpTime(near reference: CaptureTime) -> CaptureTime {
    let referenceSeconds = Self.split(reference).seconds + Self.ntpSecondsAtUnixEpoch
    let ntpSeconds = Self.unwrap(seconds, near: referenceSeconds)
    return CaptureTime(
      seconds: ntpSeconds - Self.ntpSecondsAtUnixEpoch,
      nanoseconds: Self.nanoseconds(ntpFraction: subseconds))
  }

  /// Nanoseconds (0 ..< 10^9) as an NTP fraction, rounded to the nearest 2^-32 s. The largest
  /// input gives 4,294,967,292: the result never carries into the seconds.
  public static func ntpFraction(nanoseconds: Int64) -> UInt32 {
    let clamped = UInt64(min(max(nanoseconds, 0), nanosecondsPerSecond - 1))
    let half = UInt64(nanosecondsPerSecond / 2)
    return UInt32(((clamped << 32) + half) / UInt64(nanosecondsPerSecond))
  }

  /// An NTP fraction as nanoseconds, rounded to the nearest nanosecond (half up): 0 ... 10^9.
  /// The two largest fractions (within half a nanosecond of the next second) give 10^9, which
  /// the caller carries into the seconds (`CaptureTime(seconds:nanoseconds:)` does).
  public static func nanoseconds(ntpFraction fraction: UInt32) -> Int64 {
    Int64((UInt64(fraction) * UInt64(nanosecondsPerSecond) + (1 << 31)) >> 32)
  }

  // MARK: PTP

  /// The truncated PTPv2 timestamp of `time`: the Unix clock moved onto TAI by
  /// `taiMinusUTCSeconds`.
  public init(ptp time: CaptureTime, taiMinusUTCSeconds: Int64 = taiMinusUTCSecondsSince2017) {
    let (wholeSeconds, nanoseconds) = Self.split(time)
    self.init(
      seconds: UInt32(truncatingIfNeeded: wholeSeconds + taiMinusUTCSeconds),
      subseconds: UInt32(nanoseconds))
  }

  /// This truncated PTPv2 timestamp as a (UTC) time in the 2^32-second era nearest to
  /// `reference`, or nil when its nanoseconds field is not below 10^9.
  public func ptpTime(
    near reference: CaptureTime, taiMinusUTCSeconds: Int64 = taiMinusUTCSecondsSince2017
  ) -> CaptureTime? {
    guard Int64(subseconds) < Self.nanosecondsPerSecond else { return nil }
    let referenceSeconds = Self.split(reference).seconds + taiMinusUTCSeconds
    let taiSeconds = Self.unwrap(seconds, near: referenceSeconds)
    return CaptureTime(
      seconds: taiSeconds - taiMinusUTCSeconds, nanoseconds: Int64(subseconds))
  }

  // MARK: Either format

  /// `time` in `format`.
  public init(_ time: CaptureTime, format: STAMPTimestampFormat) {
    switch format {
    case .ntp: self.init(ntp: time)
    case .ptp: self.init(ptp: time)
    }
  }

  /// This timestamp read in `format` (the Z flag of its error estimate) near `reference`; nil
  /// for a PTP timestamp whose nanoseconds are out of range.
  public func time(format: STAMPTimestampFormat, near reference: CaptureTime) -> CaptureTime? {
    switch format {
    case .ntp: ntpTime(near: reference)
    case .ptp: ptpTime(near: reference)
    }
  }

  // MARK: Helpers

  /// Whole seconds (floored) and the nanoseconds left over (0 ..< 10^9) of a time.
  private static func split(_ time: CaptureTime) -> (seconds: Int64, nanoseconds: Int64) {
    var seconds = time.nanosecondsSinceEpoch / nanosecondsPerSecond
    var nanoseconds = time.nanosecondsSinceEpoch % nanosecondsPerSecond
    if nanoseconds < 0 {
      nanoseconds += nanosecondsPerSecond
      seconds -= 1
    }
    return (seconds, nanoseconds)
  }

  /// The full count of seconds whose low 32 bits are `truncated` and which lies within
  /// 2^31 s of `reference`: the signed 32-bit distance from the reference's own low bits.
  private static func unwrap(_ truncated: UInt32, near reference: Int64) -> Int64 {
    let distance = Int32(bitPattern: truncated &- UInt32(truncatingIfNeeded: reference))
    return reference + Int64(distance)
  }
}
