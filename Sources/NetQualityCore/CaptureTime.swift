/// A packet's capture time: nanoseconds since the Unix epoch, as libpcap reports it (files with
/// microsecond resolution are scaled). The engine never reads a clock; time only comes in here.
public struct CaptureTime: Hashable, Comparable, Sendable {
  public var nanosecondsSinceEpoch: Int64

  public init(nanosecondsSinceEpoch: Int64) {
    self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
  }

  public init(seconds: Int64, nanoseconds: Int64) {
    nanosecondsSinceEpoch = seconds &* 1_000_000_000 &+ nanoseconds
  }

  public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) * 1e-9 }

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
