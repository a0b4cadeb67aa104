import Foundation
import NetQualityCore

/// The table an engineer reads: one row per stream, then the capture counters.
public enum AnalysisTable {
  public static func render(_ report: AnalysisReport, file: String? = nil, readError: String? = nil) -> String {
    var columns: [[String]] = [
      [
        "SOURCE", "DESTINATION", "SSRC", "PAYLOAD", "PKTS", "LOST", "DUP", "LATE", "JITTER ms",
        "MAX Δ ms", "RTT ms",
      ]
    ]
    var notes: Set<String> = []
    for stream in report.streams {
      let direction = stream.direction.map { " \($0.rawValue)" } ?? ""
      let lossPercent = stream.expected > 0 ? String(format: "%.1f%%", stream.lossFraction * 100) : "-"
      var jitter = "-"
      if let mean = stream.meanJitterSeconds, let maximum = stream.maxJitterSeconds {
        jitter = String(format: "%.2f/%.2f", mean * 1000, maximum * 1000)
        if stream.clockRateSource == .inferred {
          jitter += "*"
          notes.insert("* jitter uses a clock rate inferred from timestamps (no SDP, dynamic payload type)")
        }
      } else {
        notes.insert("- no jitter: the payload type's clock rate is unknown")
      }
      let roundTrip = stream.feedback.roundTrip.meanSeconds.map { String(format: "%.1f", $0 * 1000) } ?? "-"
      columns.append([
        stream.key.source.description + direction,
        stream.key.destination.description,
        SSRCFormat.text(stream.key.ssrc),
        payloadText(stream),
        "\(stream.packets)",
        "\(stream.lost) (\(lossPercent))",
        "\(stream.duplicates)",
        "\(stream.reordered)",
        jitter,
        String(format: "%.1f", stream.maxDeltaSeconds * 1000),
        roundTrip,
      ])
    }
    var lines: [String] = []
    if let file { lines.append("\(file): \(report.streams.count) RTP stream(s)") }
    lines.append(contentsOf: layout(columns))
    lines.append(contentsOf: notes.sorted())
    let capture = report.capture
    lines.append(
      "capture: \(capture.frames) packets, \(capture.udpDatagrams) UDP, \(capture.rtpPackets) RTP, "
        + "\(capture.rtcpPackets) RTCP, \(capture.nonRTPUDP) other UDP, "
        + "\(capture.decodeErrorTotal) decode errors, \(capture.truncated) truncated, "
        + "\(capture.ipFragments) IP fragments")
    if let readError { lines.append("warning: reading stopped early: \(readError)") }
    return lines.joined(separator: "\n") + "\n"
  }

  static func payloadText(_ stream: StreamReport) -> String {
    let types = stream.payloadTypes.map(String.init).joined(separator: ",")
    guard let name = stream.encodingName else { return types }
    return "\(types) \(name)"
  }

  /// Left-aligns text columns, right-aligns numeric ones, two spaces apart.
  static func layout(_ rows: [[String]]) -> [String] {
    guard let header = rows.first else { return [] }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    let numeric = Set([4, 5, 6, 7, 8, 9, 10])
    return rows.map { row in
      row.indices.map { column in
        let cell = row[column]
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return numeric.contains(column) ? padding + cell : cell + padding
      }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
  }
}
