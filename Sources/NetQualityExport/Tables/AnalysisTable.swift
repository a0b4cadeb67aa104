import NetQualityCore

/// The table an engineer reads: one row per stream, then the capture counters.
public enum AnalysisTable {
  public static func render(_ report: AnalysisReport, file: String? = nil, readError: String? = nil)
    -> String
  {
    var columns: [[String]] = [
      [
        "SOURCE", "DESTINATION", "SSRC", "PAYLOAD", "PKTS", "LOST", "DUP", "LATE", "JITTER ms",
        "MAX Δ ms", "RTT ms",
      ]
    ]
    var notes: Set<String> = []
    for stream in report.streams {
      let direction = stream.direction.map { " \($0.rawValue)" } ?? ""
      let lossPercent =
        stream.expected > 0 ? DecimalText.fixed(stream.lossFraction * 100, places: 1) + "%" : "-"
      var jitter = "-"
      if let mean = stream.meanJitterSeconds, let maximum = stream.maxJitterSeconds {
        jitter =
          DecimalText.fixed(mean * 1000, places: 2) + "/"
          + DecimalText.fixed(maximum * 1000, places: 2)
        if stream.clockRateSource == .inferred {
          jitter += "*"
          notes.insert(
            "* jitter uses a clock rate inferred from timestamps (no SDP, dynamic payload type)")
        }
      } else {
        notes.insert("- no jitter: the payload type's clock rate is unknown")
      }
      let roundTrip =
        stream.feedback.roundTrip.meanSeconds.map { DecimalText.fixed($0 * 1000, places: 1) } ?? "-"
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
        DecimalText.fixed(stream.maxDeltaSeconds * 1000, places: 1),
        roundTrip,
      ])
    }
    var lines: [String] = []
    if let file {
      lines.append("\(TerminalText.sanitized(file)): \(report.streams.count) RTP stream(s)")
    }
    lines.append(contentsOf: layout(columns))
    lines.append(contentsOf: notes.sorted())
    lines.append(contentsOf: MediaTable.lines(report))
    let capture = report.capture
    lines.append(
      "capture: \(capture.frames) packets, \(capture.udpDatagrams) UDP, \(capture.rtpPackets) RTP, "
        + "\(capture.rtcpPackets) RTCP, \(capture.nonRTPUDP) other UDP, "
        + "\(capture.decodeErrorTotal) decode errors, \(capture.truncated) truncated, "
        + "\(capture.ipFragments) IP fragments, \(capture.badTimestampRecords) bad timestamps")
    if capture.clockSteps > 0 || capture.outOfOrderTimestamps > 0 {
      lines.append(
        "clock: the capture's timestamps stepped back \(capture.clockSteps) time(s) and "
          + "\(capture.outOfOrderTimestamps) packet(s) were stamped out of order; times after "
          + "each step run on from the step (see docs/analysis.md)")
    }
    if let readError {
      lines.append("warning: reading stopped early: \(TerminalText.sanitized(readError))")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The payload types and the SDP's encoding name, which comes from the wire (sanitised:
  /// an `rtpmap` can carry escape sequences).
  static func payloadText(_ stream: StreamReport) -> String {
    let types = stream.payloadTypes.map(String.init).joined(separator: ",")
    guard let name = stream.encodingName else { return types }
    return "\(types) \(TerminalText.sanitized(name))"
  }

  /// Left-aligns text columns, right-aligns numeric ones, two spaces apart.
  static func layout(_ rows: [[String]]) -> [String] {
    guard let header = rows.first else { return [] }
    // Display width: one column per Unicode scalar, which holds for this table's text
    // (ASCII and the Greek delta), and is much cheaper than counting grapheme clusters.
    let widths = header.indices.map { column in
      rows.map { $0[column].unicodeScalars.count }.max() ?? 0
    }
    let firstNumericColumn = 4
    let space = UInt8(ascii: " ")
    return rows.map { row in
      // Built as bytes: appending Characters one by one costs more than the analysis.
      var bytes: [UInt8] = []
      bytes.reserveCapacity(160)
      for (column, cell) in row.enumerated() {
        if column > 0 { bytes.append(contentsOf: [space, space]) }
        let padding = widths[column] - cell.unicodeScalars.count
        if column >= firstNumericColumn {
          bytes.append(contentsOf: repeatElement(space, count: padding))
          bytes.append(contentsOf: cell.utf8)
        } else {
          bytes.append(contentsOf: cell.utf8)
          if column < row.count - 1 {
            bytes.append(contentsOf: repeatElement(space, count: padding))
          }
        }
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }
}
