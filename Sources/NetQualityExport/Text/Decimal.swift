/// Fixed-point text for numbers in tables and dashboards, without Foundation's `String(format:)`
/// (which costs more per call than analysing a packet).
public enum DecimalText {
  /// `value` with exactly `places` digits after the point, rounded half away from zero.
  public static func fixed(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9.0e18 else { return String(value) }
    let units = UInt64(scaled)
    let sign = value < 0 && units != 0 ? "-" : ""
    let integer = units / UInt64(scale)
    guard places > 0 else { return sign + String(integer) }
    let fraction = String(units % UInt64(scale))
    return sign + String(integer) + "." + String(repeating: "0", count: places - fraction.count)
      + fraction
  }
}
