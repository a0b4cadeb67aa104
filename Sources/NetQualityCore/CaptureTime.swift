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
