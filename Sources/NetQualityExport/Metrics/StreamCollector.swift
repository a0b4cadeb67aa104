import NetQualityCore

/// The opt-in per-stream series (`metrics.per_stream`), for the first streams up to a cap.
public struct StreamCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .streamLossRatio, .streamJitterSeconds, .streamPacketsTotal, .streamSeriesDropped,
  ]

  public var streams: [StreamWindow]
  /// Streams with series of their own at most (`metrics.max_stream_series`).
  public var maxSeries: Int

  public init(streams: [StreamWindow], maxSeries: Int) {
    self.streams = streams
    self.maxSeries = maxSeries
  }

  public func collect(into out: inout MetricsWriter) {
    let shown = streams.prefix(maxSeries)
    func labels(_ stream: StreamWindow) -> [(String, String)] {
      [
        ("src", stream.key.source.description), ("dst", stream.key.destination.description),
        ("ssrc", SSRCFormat.text(stream.key.ssrc)), ("direction", stream.direction.rawValue),
      ]
    }
    out.family(.streamLossRatio)
    for stream in shown {
      out.sample(.streamLossRatio, labels(stream), stream.lossRatio)
    }
    out.family(.streamJitterSeconds)
    for stream in shown {
      if let jitter = stream.jitterMilliseconds {
        out.sample(.streamJitterSeconds, labels(stream), jitter / 1000)
      }
    }
    out.family(.streamPacketsTotal)
    for stream in shown {
      out.sample(.streamPacketsTotal, labels(stream), Double(stream.packetsTotal))
    }
    out.family(.streamSeriesDropped)
    out.sample(.streamSeriesDropped, [], Double(streams.count - shown.count))
  }
}

// MARK: The families

extension MetricFamily {
  static let streamLabels = ["src", "dst", "ssrc", "direction"]
  public static let streamLossRatio = gauge(
    "netquality_stream_loss_ratio", labels: streamLabels,
    "Loss of the last window, per stream (opt-in).")
  public static let streamJitterSeconds = gauge(
    "netquality_stream_jitter_seconds", labels: streamLabels,
    "RFC 3550 jitter of the last window, per stream.")
  public static let streamPacketsTotal = counter(
    "netquality_stream_packets_total", labels: streamLabels, "RTP packets of the stream.")
  public static let streamSeriesDropped = gauge(
    "netquality_stream_series_dropped", "Streams left out of the per-stream series by the cap.")
}
