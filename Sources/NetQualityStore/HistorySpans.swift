import GRDB

/// Which rows serve which part of a report's range [from, to) (whole minutes): rolled-up
/// hours where whole hours of the range are rolled up, minutes at its ends and where hours are
/// not rolled up yet, raw ticks from the minute watermark on. The parts do not overlap and
/// together cover the range, so the report is the same wherever the watermarks are.
struct HistorySpans: Equatable {
  var hours: Range<Double>
  /// Before the hours and after them (both empty or one covering all when there are none).
  var minutes: [Range<Double>]
  var raw: Range<Double>

  init(
    from: Double, to: Double, minuteWatermark: Double?, hourWatermark: Double?,
    oldestMinute: Double?
  ) {
    // Minutes before the minute watermark are aggregated, hours before the hour watermark.
    let aggregatedEnd = max(from, min(to, minuteWatermark ?? from))
    raw = aggregatedEnd..<to
    // A partly deleted hour (its first minutes gone with their retention) has no row: only
    // the hours after the oldest minute serve.
    let hoursFrom = max(Self.hourUp(from), oldestMinute.map(Self.hourUp) ?? .infinity)
    let hoursTo = min(Self.hourDown(aggregatedEnd), hourWatermark ?? -.infinity)
    if hoursFrom < hoursTo {
      hours = hoursFrom..<hoursTo
      minutes = [from..<hoursFrom, hoursTo..<aggregatedEnd]
    } else {
      hours = from..<from
      minutes = [from..<aggregatedEnd, aggregatedEnd..<aggregatedEnd]
    }
  }

  /// The spans of [from, to) in the file as it is.
  init(_ db: Database, from: Double, to: Double) throws {
    self.init(
      from: from, to: to, minuteWatermark: try HistoryMaintenance.watermark(db),
      hourWatermark: try HistoryMaintenance.watermark(db, of: "peer_hours"),
      oldestMinute: try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_minutes"))
  }

  static func hourUp(_ time: Double) -> Double { (time / 3600).rounded(.up) * 3600 }
  static func hourDown(_ time: Double) -> Double { (time / 3600).rounded(.down) * 3600 }
}
