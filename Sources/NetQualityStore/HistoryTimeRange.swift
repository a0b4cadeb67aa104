import Foundation

/// The stretch of time a history command or `/api/v1/history` asks about: `--since 1h`
/// (back from now), or `--from T --to T` with T as Unix seconds or an RFC 3339 / ISO 8601 time
/// (`2026-11-23T14:00:00Z`, `2026-11-23 14:00`; without a zone, UTC, as the tables print).
public enum HistoryTimeRange {
  /// Seconds in a duration such as `90s`, `15m`, `1h`, `2d`, `1w` (a bare number: seconds).
  public static func seconds(_ text: String) -> Double? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
    var number = Substring(text.trimmingCharacters(in: .whitespaces))
    var scale = 1.0
    if let last = number.last, let unit = units[last] {
      scale = unit
      number = number.dropLast()
    }
    guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
    return value * scale
  }

  /// Unix seconds of an absolute time.
  public static func time(_ text: String) -> Double? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let value = Double(trimmed), value.isFinite { return value }
    var normalized = trimmed.replacingOccurrences(of: " ", with: "T")
    let hasZone =
      normalized.hasSuffix("Z")
      || normalized.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil
    if !hasZone { normalized += "Z" }
    for format in [
      "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mmXXXXX",
    ] {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = format
      if let date = formatter.date(from: normalized) { return date.timeIntervalSince1970 }
    }
    if normalized.count == 11, let date = Self.time(String(normalized.dropLast()) + "T00:00Z") {
      return date
    }
    return nil
  }

  /// [from, to) from the options, or a one-line reason they do not make one.
  public static func resolve(
    since: String?, from: String?, to: String?, defaultSinceSeconds: Double, now: Double
  ) throws(HistoryError) -> (from: Double, to: Double) {
    if since != nil && from != nil {
      throw HistoryError("give --since or --from, not both")
    }
    var end = now
    if let to {
      guard let value = time(to) else { throw HistoryError("--to \(to): not a time") }
      end = value
    }
    let start: Double
    if let from {
      guard let value = time(from) else { throw HistoryError("--from \(from): not a time") }
      start = value
    } else if let since {
      guard let value = seconds(since) else {
        throw HistoryError("--since \(since): not a duration (e.g. 90s, 15m, 1h, 2d)")
      }
      start = end - value
    } else {
      start = end - defaultSinceSeconds
    }
    guard start < end else { throw HistoryError("the range is empty: from is not before to") }
    return (start, end)
  }
}
