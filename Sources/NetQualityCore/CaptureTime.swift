/// A packet's capture time: nanoseconds since the Unix epoch, as libpcap reports it (files with
/// microsecond resolution are scaled). The engine never reads a clock; time only comes in here.
public struct CaptureTime: Hashable, Comparable, Sendable {
  public var nanosecondsSinceEpoch: Int64

  public init(nanosecondsSinceEpoch: Int64) {
    self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
  }

  /// A time from a capture header. Capture formats cannot say a time before 1970, and a
  /// 64-bit pcapng timestamp can say more nanoseconds than an `Int64` holds (about the year
  /// 2262): the result is clamped to `zero ... latest` instead of wrapping or trapping.
  public init(seconds: Int64, nanoseconds: Int64) {
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else {
      nanosecondsSinceEpoch = seconds < 0 ? 0 : .max
      return
    }
    let (sum, carry) = whole.addingReportingOverflow(nanoseconds)
    nanosecondsSinceEpoch = carry ? (nanoseconds < 0 ? 0 : .max) : max(0, sum)
  }

  /// The Unix epoch, the earliest time a capture can state.
  public static let zero = CaptureTime(nanosecondsSinceEpoch: 0)
  /// The latest representable time (2262-04-11T23:47:16.854Z).
  public static let latest = CaptureTime(nanosecondsSinceEpoch: .max)

  public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) * 1e-9 }

  /// The later of two times that may be unknown (nil only when both are).
  @inline(__always)
  static func later(_ a: CaptureTime?, _ b: CaptureTime?) -> CaptureTime? {
    guard let a else { return b }
    guard let b else { return a }
    return max(a, b)
  }

  /// The earlier of two times that may be unknown (nil only when both are).
  @inline(__always)
  static func earlier(_ a: CaptureTime?, _ b: CaptureTime?) -> CaptureTime? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
  }

  /// Seconds from `earlier` to this time (negative when `earlier` is later), for any two
  /// times: a difference that does not fit in 64 bits is taken in floating point instead of
  /// trapping.
  public func seconds(since earlier: CaptureTime) -> Double {
    let (difference, overflow) = nanosecondsSinceEpoch.subtractingReportingOverflow(
      earlier.nanosecondsSinceEpoch)
    guard overflow else { return Double(difference) * 1e-9 }
    return (Double(nanosecondsSinceEpoch) - Double(earlier.nanosecondsSinceEpoch)) * 1e-9
  }

  /// This time moved by `nanoseconds` (either sign), saturating at the ends of `Int64`.
  public func advanced(byNanoseconds nanoseconds: Int64) -> CaptureTime {
    let (sum, overflow) = nanosecondsSinceEpoch.addingReportingOverflow(nanoseconds)
    guard overflow else { return CaptureTime(nanosecondsSinceEpoch: sum) }
    return CaptureTime(nanosecondsSinceEpoch: nanoseconds < 0 ? .min : .max)
  }

  /// This time moved by `seconds` (either sign), saturating instead of trapping however large
  /// the shift (a configured interval, a threshold).
  public func advanced(bySeconds seconds: Double) -> CaptureTime {
    advanced(byNanoseconds: Self.nanoseconds(seconds))
  }

  /// `seconds` in whole nanoseconds, clamped to what `Int64` holds (NaN counts as 0).
  public static func nanoseconds(_ seconds: Double) -> Int64 {
    let value = (seconds * 1e9).rounded()
    guard value.isFinite else { return value.isNaN ? 0 : (value < 0 ? .min : .max) }
    // 2^63 is exactly representable; anything at or beyond it does not fit.
    if value >= 9_223_372_036_854_775_808.0 { return .max }
    if value <= -9_223_372_036_854_775_808.0 { return .min }
    return Int64(value)
  }

  public static func < (lhs: CaptureTime, rhs: CaptureTime) -> Bool {
    lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
  }
}

extension CaptureTime {
  /// UTC in RFC 3339 form with milliseconds, computed from the time itself (civil-from-days,
  /// H. Hinnant's algorithm) so output never depends on the machine's time zone.
  public var rfc3339: String {
    let milliseconds = nanosecondsSinceEpoch / 1_000_000
    var days = milliseconds / 86_400_000
    var inDay = milliseconds % 86_400_000
    if inDay < 0 {
      inDay += 86_400_000
      days -= 1
    }
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):"
      + "\(pad(inDay / 60_000 % 60, 2)):\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
  }
}
