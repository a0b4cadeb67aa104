extension StreamAnalyzer {
  public var streamCount: Int { streams.count }

  /// Validated as RTP: by probation or SDP, or on the same address pair as a validated stream.
  func isConfirmed(_ index: Int) -> Bool {
    streams[index].confirmation != nil || streams[index].confirmedByFlow
  }

  /// The stream's RTP clock rate, when known (signalled, static or inferred).
  func clockRateHz(of stream: RTPStream) -> Int? {
    let clock = stream.reportedClock
    return clock.source != .unknown ? Int(clock.rateHz) : nil
  }

  /// Video by SDP media kind, or by the 90 kHz clock every RTP video format uses: from the
  /// stream's key and reported clock. Inlined: asked for every stream at every harvest, a call
  /// from a mutating method copied the whole analyser (2.5 KB) into a temporary for it (Swift
  /// passes a struct this large by address; perf, issue 37).
  @inline(__always)
  func isVideo(_ key: StreamKey, clock: PayloadClock) -> Bool {
    if clock.rateHz == 90_000 { return true }
    return signalled(key)?.kind == "video"
  }
}

extension StreamAnalyzer {
  /// The capture counters without building every stream's report (for metrics every tick);
  /// `rtpPackets` and `nonRTPUDP` are filled only by `report()`.
  public var captureCounters: CaptureCounters {
    var capture = counters
    capture.decodeErrors = decodeErrors.byReason
    capture.clockSteps = clock.steps
    capture.outOfOrderTimestamps = clock.outOfOrderTimestamps
    return capture
  }
}
