/// Round trips, jitter and delays as people read them: whole microseconds below a millisecond,
/// milliseconds from there. A same-host or same-rack path is tens to hundreds of microseconds,
/// and "0.0 ms" said nothing about it (issue 26: smokeping_prober showed 86 µs where the status
/// page, `top` and the dashboard showed 0.0 ms). Every table, page and terminal view that
/// prints a round trip or a jitter prints it through this one function.
public enum DurationText {
  /// `milliseconds` as "86 µs" (below 1 ms, whole microseconds) or "12.3 ms" (`places` digits
  /// after the point); "-" for nil.
  public static func milliseconds(_ milliseconds: Double?, places: Int = 1) -> String {
    guard let milliseconds else { return "-" }
    guard milliseconds.isFinite else { return DecimalText.fixed(milliseconds, places: 0) }
    let microseconds = (milliseconds * 1000).rounded()
    // 999.6 µs rounds to 1000: a millisecond, said as one.
    if abs(microseconds) < 1000 {
      return DecimalText.fixed(microseconds, places: 0) + " µs"
    }
    return DecimalText.fixed(milliseconds, places: places) + " ms"
  }

  /// The same for a value in seconds.
  public static func seconds(_ seconds: Double?, places: Int = 1) -> String {
    milliseconds(seconds.map { $0 * 1000 }, places: places)
  }
}
