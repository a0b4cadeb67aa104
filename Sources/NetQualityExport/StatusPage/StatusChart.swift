import NetQualityCore

/// A peer's small chart on the status page, as inline SVG (no script, no external file: the
/// page works offline and under a strict Content-Security-Policy): three bands over the same
/// time axis — the rx and tx levels (excellent at the top, down at the bottom), the rx and tx
/// loss in percent, and the round trip in milliseconds — each line broken where a bucket had
/// no figure.
public enum StatusChart {
  public static let width = 320.0
  /// Height of one band, and the gap between bands.
  static let bandHeight = 24.0
  static let gap = 6.0
  /// The time axis' labels under the bands.
  static let axisHeight = 10.0
  static var height: Double { 3 * bandHeight + 2 * gap + axisHeight }
  /// Colours of the two directions (rx: blue, tx: orange; told apart by colour-blind readers
  /// too, ColorBrewer's "Paired" pair).
  static let rxColour = "#1f78b4"
  static let txColour = "#ff7f00"
  static let rttColour = "#6a3d9a"

  /// The chart of `points` over [from, to) (Unix seconds). `data-points` says how many
  /// buckets it draws (for tests and for a reader of the DOM).
  public static func svg(_ points: [ChartPoint], from: Double, to: Double) -> String {
    let span = max(to - from, 1)
    func x(_ time: Double) -> Double { min(max((time - from) / span, 0), 1) * width }
    var parts: [String] = []
    // Levels: 1 (excellent) at the band's top, 6 (down) at its bottom; unknown is no figure.
    func levelY(_ level: QualityLevel) -> Double? {
      level == .unknown ? nil : 2 + Double(level.rawValue - 1) / 5 * (bandHeight - 4)
    }
    parts.append(band(0, label: "level"))
    parts.append(path(points.map { (x($0.time), levelY($0.rxLevel)) }, colour: rxColour))
    parts.append(path(points.map { (x($0.time), levelY($0.txLevel)) }, colour: txColour))
    // Loss: 0 at the bottom, the top at least 5 % (so 0.1 % stays near the floor).
    let lossTop = max(
      0.05, points.flatMap { [$0.rxLossRatio, $0.txLossRatio] }.compactMap { $0 }.max() ?? 0)
    let lossBase = bandHeight + gap
    func lossY(_ ratio: Double?) -> Double? {
      ratio.map { lossBase + bandHeight - 1 - min($0 / lossTop, 1) * (bandHeight - 2) }
    }
    parts.append(band(lossBase, label: "loss ≤ \(DecimalText.fixed(lossTop * 100, places: 1)) %"))
    parts.append(path(points.map { (x($0.time), lossY($0.rxLossRatio)) }, colour: rxColour))
    parts.append(path(points.map { (x($0.time), lossY($0.txLossRatio)) }, colour: txColour))
    // Round trip: 0 at the bottom, the top at least 50 ms.
    let rttTop = max(50, points.compactMap(\.roundTripMilliseconds).max() ?? 0)
    let rttBase = 2 * (bandHeight + gap)
    func rttY(_ milliseconds: Double?) -> Double? {
      milliseconds.map { rttBase + bandHeight - 1 - min($0 / rttTop, 1) * (bandHeight - 2) }
    }
    parts.append(band(rttBase, label: "RTT ≤ \(DurationText.milliseconds(rttTop, places: 0))"))
    parts.append(
      path(points.map { (x($0.time), rttY($0.roundTripMilliseconds)) }, colour: rttColour))
    parts.append(axis(spanSeconds: span, top: rttBase + bandHeight))
    return """
      <svg class="chart" xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" \
      height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" \
      data-points="\(points.count)" role="img"><title>\(HTMLText.escape(summary(points)))</title>\
      \(parts.joined())</svg>
      """
  }

  /// "rx worst poor, tx worst excellent, max loss 3.1 %, max RTT 45 ms over 30 points".
  static func summary(_ points: [ChartPoint]) -> String {
    guard !points.isEmpty else { return "no data yet" }
    let rx = points.map(\.rxLevel).reduce(QualityLevel.unknown) { $0.worse($1) }
    let tx = points.map(\.txLevel).reduce(QualityLevel.unknown) { $0.worse($1) }
    let loss = points.flatMap { [$0.rxLossRatio, $0.txLossRatio] }.compactMap { $0 }.max()
    let rtt = points.compactMap(\.roundTripMilliseconds).max()
    return "rx worst \(rx.name), tx worst \(tx.name), max loss "
      + (loss.map { DecimalText.fixed($0 * 100, places: 1) + " %" } ?? "-") + ", max RTT "
      + DurationText.milliseconds(rtt, places: 0)
      + " over \(points.count) points"
  }

  /// "-60 min" under the left end, "now" under the right (the span ends at the last tick).
  private static func axis(spanSeconds: Double, top: Double) -> String {
    let minutes = DecimalText.fixed(spanSeconds / 60, places: 0)
    return """
      <text x="0" y="\(number(top + 9))" font-size="8" fill="#666">-\(minutes) min</text>\
      <text x="\(Int(width))" y="\(number(top + 9))" font-size="8" fill="#666" \
      text-anchor="end">now</text>
      """
  }

  private static func band(_ top: Double, label: String) -> String {
    """
    <rect x="0" y="\(number(top))" width="\(Int(width))" height="\(Int(bandHeight))" \
    fill="#f4f4f4"/><text x="2" y="\(number(top + 8))" font-size="8" fill="#666">\
    \(HTMLText.escape(label))</text>
    """
  }

  /// A line through the points that have a figure; a missing figure starts a new piece. A
  /// piece of one point is drawn as a short tick so it shows.
  private static func path(_ points: [(x: Double, y: Double?)], colour: String) -> String {
    var commands: [String] = []
    var pieceLength = 0
    for (x, y) in points {
      guard let y else {
        pieceLength = 0
        continue
      }
      if pieceLength == 0 {
        commands.append("M\(number(max(0, x - 1))) \(number(y))L\(number(x + 1)) \(number(y))")
      } else {
        commands.append("L\(number(x)) \(number(y))")
      }
      pieceLength += 1
    }
    guard !commands.isEmpty else { return "" }
    return #"<path d="\#(commands.joined())" fill="none" stroke="\#(colour)" stroke-width="1.5"/>"#
  }

  /// One decimal: a tenth of a pixel is enough, and keeps a chart of 120 points small.
  private static func number(_ value: Double) -> String {
    DecimalText.fixed(value, places: 1)
  }
}
