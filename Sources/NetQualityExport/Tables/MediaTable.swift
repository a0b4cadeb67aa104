import NetQualityCore

/// The media part of `analyze`'s table: video frames and freezes, audio concealment, and the
/// RTCP feedback between addresses (docs/media.md). Empty when the capture has none.
public enum MediaTable {
  public static func lines(_ report: AnalysisReport) -> [String] {
    var lines: [String] = []
    let video = report.streams.filter { $0.isVideo && ($0.media?.framesReceived ?? 0) > 0 }
    if !video.isEmpty {
      lines.append("")
      lines.append(
        "video (frames from RTP headers; freezes and pauses as webrtc-stats defines them):")
      var rows: [[String]] = [
        [
          "SOURCE", "DESTINATION", "SSRC", "PAYLOAD", "FRAMES", "FPS", "INCOMPLETE", "RTX ONLY",
          "KEY", "RESOLUTION", "FREEZES", "FROZEN s", "PAUSES", "PAUSED s",
        ]
      ]
      for stream in video {
        guard let media = stream.media else { continue }
        rows.append([
          stream.key.source.description + (stream.direction.map { " \($0.rawValue)" } ?? ""),
          stream.key.destination.description,
          SSRCFormat.text(stream.key.ssrc),
          AnalysisTable.payloadText(stream),
          "\(media.framesReceived)",
          framesPerSecond(media).map { DecimalText.fixed($0, places: 2) } ?? "-",
          "\(media.framesIncomplete)",
          "\(media.framesRetransmitted)",
          media.keyFrames > 0 ? "\(media.keyFrames)" : "-",
          media.frameWidth > 0 ? "\(media.frameWidth)x\(media.frameHeight)" : "-",
          "\(media.freezes)",
          DecimalText.fixed(media.freezesSeconds, places: 3),
          "\(media.pauses)",
          DecimalText.fixed(media.pausesSeconds, places: 3),
        ])
      }
      lines.append(contentsOf: AnalysisTable.layout(rows))
      if video.contains(where: { ($0.media?.keyFrames ?? 0) == 0 }) {
        lines.append("- key frames and resolution only where SDP names the format (VP8, VP9, H264)")
      }
    }
    let audio = report.streams.filter { !$0.isVideo && $0.media != nil }
    if !audio.isEmpty {
      lines.append("")
      lines.append(
        "audio (concealment estimated from sequence gaps; DTX silence is not concealment):")
      var rows: [[String]] = [
        ["SOURCE", "DESTINATION", "SSRC", "PAYLOAD", "CONCEALED s", "EVENTS", "SILENCE s"]
      ]
      for stream in audio {
        guard let media = stream.media else { continue }
        rows.append([
          stream.key.source.description + (stream.direction.map { " \($0.rawValue)" } ?? ""),
          stream.key.destination.description,
          SSRCFormat.text(stream.key.ssrc),
          AnalysisTable.payloadText(stream),
          DecimalText.fixed(media.concealedSeconds, places: 3),
          "\(media.concealmentEvents)",
          DecimalText.fixed(media.silenceSeconds, places: 3),
        ])
      }
      lines.append(contentsOf: AnalysisTable.layout(rows))
    }
    let feedback = report.feedbackByPair.filter { !$0.value.isEmpty }.sorted {
      ($0.key.source, $0.key.destination) < ($1.key.source, $1.key.destination)
    }
    if !feedback.isEmpty {
      lines.append("")
      lines.append("RTCP feedback (receiver to sender):")
      var rows: [[String]] = [
        ["FROM", "TO", "", "", "NACK", "NACKED", "PLI", "FIR", "REMB", "REMB bps", "TWCC", "SRTCP"]
      ]
      for (pair, counts) in feedback {
        rows.append([
          pair.source.description, pair.destination.description, "", "",
          "\(counts.nackMessages)", "\(counts.nackedPackets)",
          "\(counts.pictureLossIndications)", "\(counts.fullIntraRequests)",
          "\(counts.estimateMessages)",
          counts.lastEstimateBitsPerSecond.map { DecimalText.fixed($0, places: 0) } ?? "-",
          "\(counts.transportFeedbackMessages)", "\(counts.encryptedMessages)",
        ])
      }
      // Two empty text columns: `layout` right-aligns from the fifth column on.
      lines.append(contentsOf: AnalysisTable.layout(rows))
    }
    return lines
  }

  /// Frames a second over the stream's frame intervals (nil with fewer than two frames).
  public static func framesPerSecond(_ media: MediaCounts) -> Double? {
    guard media.interFrameIntervals > 0, media.totalInterFrameDelaySeconds > 0 else { return nil }
    return Double(media.interFrameIntervals) / media.totalInterFrameDelaySeconds
  }
}
