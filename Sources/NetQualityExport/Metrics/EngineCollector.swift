import NetQualityCore

/// The engine's own figures: streams tracked and the slots holding them, how long the last
/// tick took and how late it started, and what the captures handed it (`CaptureCounters`).
public struct EngineCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .streams, .streamSlots, .tickDurationSeconds, .ticksSkippedTotal, .tickLatenessSeconds,
    .tickCompletionSeconds, .tickPhaseSecondsTotal,
    .packetsTotal, .rtcpPacketsTotal, .decodeErrorsTotal, .truncatedPacketsTotal,
    .captureClockStepsTotal, .captureOutOfOrderTimestampsTotal, .captureBadTimestampRecordsTotal,
  ]

  public var capture: CaptureCounters
  public var trackedStreams: Int
  /// Slots of the engine's stream arrays: live streams plus free slots awaiting reuse.
  public var streamSlots: Int
  /// The last tick's phases and how long each took, seconds (harvest, score, publish).
  public var tickDurations: [(phase: String, seconds: Double)]
  /// Tick boundaries passed without a tick since the start, and how late the last tick started.
  public var ticksSkipped: Int64
  public var tickLatenessSeconds: Double
  /// Every tick since the start: seconds from its boundary until every consumer had it.
  public var tickCompletion: DelayHistogram
  /// Every tick's phases since the start, seconds in all (harvest, score, publish).
  public var tickPhaseTotals: [(phase: String, seconds: Double)]

  public init(
    capture: CaptureCounters = CaptureCounters(), trackedStreams: Int = 0, streamSlots: Int = 0,
    tickDurations: [(phase: String, seconds: Double)] = [], ticksSkipped: Int64 = 0,
    tickLatenessSeconds: Double = 0,
    tickCompletion: DelayHistogram = DelayHistogram(
      boundsSeconds: EngineCollector.tickCompletionBoundsSeconds),
    tickPhaseTotals: [(phase: String, seconds: Double)] = []
  ) {
    self.tickCompletion = tickCompletion
    self.tickPhaseTotals = tickPhaseTotals
    self.capture = capture
    self.trackedStreams = trackedStreams
    self.streamSlots = streamSlots
    self.tickDurations = tickDurations
    self.ticksSkipped = ticksSkipped
    self.tickLatenessSeconds = tickLatenessSeconds
  }

  /// Bounds of `netquality_tick_completion_seconds`: 10 ms to 5 s. 200 ms is the lateness a
  /// tick may have (issue 37), 1 s half the default interval (a tick then runs into the next
  /// one's half), 2 s the interval itself.
  public static let tickCompletionBoundsSeconds = [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]

  public func collect(into out: inout MetricsWriter) {
    out.family(.streams)
    out.sample(.streams, [], Double(trackedStreams))
    out.family(.streamSlots)
    out.sample(.streamSlots, [], Double(streamSlots))
    out.family(.tickDurationSeconds)
    for (phase, seconds) in tickDurations {
      out.sample(.tickDurationSeconds, [("phase", phase)], seconds)
    }
    out.family(.ticksSkippedTotal)
    out.sample(.ticksSkippedTotal, [], Double(ticksSkipped))
    out.family(.tickLatenessSeconds)
    out.sample(.tickLatenessSeconds, [], tickLatenessSeconds)
    out.family(.tickCompletionSeconds)
    out.histogram(.tickCompletionSeconds, [], tickCompletion)
    out.family(.tickPhaseSecondsTotal)
    for (phase, seconds) in tickPhaseTotals {
      out.sample(.tickPhaseSecondsTotal, [("phase", phase)], seconds)
    }
    out.family(.packetsTotal)
    out.sample(.packetsTotal, [], Double(capture.frames))
    out.family(.rtcpPacketsTotal)
    out.sample(.rtcpPacketsTotal, [], Double(capture.rtcpPackets))
    // Every reason, 0 until it happens, so that rate() and increase() see the first error
    // (https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics).
    out.family(.decodeErrorsTotal)
    for reason in MalformedReason.allCases {
      out.sample(
        .decodeErrorsTotal, [("reason", reason.rawValue)],
        Double(capture.decodeErrors[reason.rawValue] ?? 0))
    }
    out.family(.truncatedPacketsTotal)
    out.sample(.truncatedPacketsTotal, [], Double(capture.truncated))
    out.family(.captureClockStepsTotal)
    out.sample(.captureClockStepsTotal, [], Double(capture.clockSteps))
    out.family(.captureOutOfOrderTimestampsTotal)
    out.sample(.captureOutOfOrderTimestampsTotal, [], Double(capture.outOfOrderTimestamps))
    out.family(.captureBadTimestampRecordsTotal)
    out.sample(.captureBadTimestampRecordsTotal, [], Double(capture.badTimestampRecords))
  }
}

// MARK: The families

extension MetricFamily {
  public static let streams = gauge(
    "netquality_streams", "RTP streams tracked (validated and candidates).")
  public static let streamSlots = gauge(
    "netquality_stream_slots",
    "Slots of the stream table: live streams plus free slots awaiting reuse.")
  public static let tickDurationSeconds = gauge(
    "netquality_tick_duration_seconds", labels: ["phase"],
    "How long the last tick took, by phase: harvest (captures held up), score, publish.")
  public static let ticksSkippedTotal = counter(
    "netquality_ticks_skipped_total",
    "Tick boundaries passed without a tick because the ticker woke a whole interval late or "
      + "more (a stopped or starved process); the next tick closes the latest boundary.")
  public static let tickLatenessSeconds = gauge(
    "netquality_tick_lateness_seconds",
    "How long after its boundary the last tick started (normally a millisecond or two).")
  public static let tickCompletionSeconds = histogram(
    "netquality_tick_completion_seconds",
    "Seconds from each tick's boundary until every consumer (HTTP, dashboard, log, history "
      + "queue) had its result: its lateness and its phases. Every tick since the start, so a "
      + "late one is seen at any scrape interval.")
  public static let tickPhaseSecondsTotal = counter(
    "netquality_tick_phase_seconds_total", labels: ["phase"],
    "Seconds the ticks spent in each phase since the start: harvest (captures held up), score, "
      + "publish.")
  public static let packetsTotal = counter(
    "netquality_packets_total", "Frames handed to the engine.")
  public static let rtcpPacketsTotal = counter(
    "netquality_rtcp_packets_total", "RTCP compound packets seen.")
  public static let decodeErrorsTotal = counter(
    "netquality_decode_errors_total", labels: ["reason"],
    "Malformed frames and packets, by reason.")
  public static let truncatedPacketsTotal = counter(
    "netquality_truncated_packets_total", "Frames cut by the snap length.")
  public static let captureClockStepsTotal = counter(
    "netquality_capture_clock_steps_total",
    "Times the packet timestamps stepped back more than 1 s and the analysis followed.")
  public static let captureOutOfOrderTimestampsTotal = counter(
    "netquality_capture_out_of_order_timestamps_total",
    "Single packets stamped more than 1 s behind their neighbours, placed in arrival order.")
  public static let captureBadTimestampRecordsTotal = counter(
    "netquality_capture_bad_timestamp_records_total",
    "Capture records whose timestamp is not a time (sub-second field out of range), analysed at the latest record's time."
  )
}

extension EngineCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    EngineCollector(tickDurations: [("harvest", 0.001), ("score", 0.002), ("publish", 0.001)])
  }
}
