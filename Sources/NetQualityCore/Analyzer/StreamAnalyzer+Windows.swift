/// Cumulative figures of one stream at a moment, cheap to take at every tick: the engine
/// subtracts two of them to get a window.
public struct StreamCounters: Sendable {
  public var key: StreamKey
  /// The capture interface the stream was first seen on.
  public var interface: UInt8
  /// Validated as RTP (probation, SDP, or a validated stream on the same address pair).
  public var isConfirmed: Bool
  public var packets: Int64
  public var expected: Int64
  /// Packets that filled an expected slot: expected - counted is the loss so far.
  public var countedPackets: Int64
  /// Of the loss, the packets that went missing across silences of a second or more (outages,
  /// which the connection state reports).
  public var silenceLoss: Int64
  public var duplicates: Int64
  public var late: Int64
  public var payloadBytes: Int64
  public var lastArrival: CaptureTime
  /// When the stream began: a different value at the same index means a new stream reused it.
  public var firstArrival: CaptureTime
  /// When traffic last resumed after a silence of a second or more (or began).
  public var resumedAt: CaptureTime
  /// RFC 3550 jitter now and its maximum since the last window started; nil without a clock.
  public var jitterSeconds: Double?
  public var windowMaxJitterSeconds: Double?
  public var clockRateHz: Int?
  public var isVideo: Bool
  /// Media, or repairs of another stream (kept out of the peer's jitter and loss).
  public var role: StreamRole
  public var feedback: ReceptionFeedback
}

extension StreamAnalyzer {
  public var streamCount: Int { streams.count }

  /// The cumulative figures of stream `index` (0 ..< streamCount; indices never change).
  public func counters(ofStream index: Int) -> StreamCounters {
    let stream = streams[index]
    let clockRateHz = clockRateHz(of: stream)
    let hasClock = clockRateHz != nil
    return StreamCounters(
      key: stream.key,
      interface: stream.interface,
      isConfirmed: isConfirmed(index),
      packets: stream.packets,
      expected: stream.sequence.expected,
      countedPackets: stream.sequence.countedPackets,
      silenceLoss: stream.silenceLoss,
      duplicates: stream.sequence.duplicates,
      late: stream.sequence.latePackets,
      payloadBytes: stream.payloadBytes,
      lastArrival: CaptureTime(nanosecondsSinceEpoch: stream.lastArrivalNanoseconds),
      firstArrival: CaptureTime(nanosecondsSinceEpoch: stream.firstArrivalNanoseconds),
      resumedAt: CaptureTime(nanosecondsSinceEpoch: stream.resumedAtNanoseconds),
      jitterSeconds: hasClock ? stream.jitter.jitterSeconds : nil,
      windowMaxJitterSeconds: hasClock ? stream.jitter.windowMaxJitterSeconds : nil,
      clockRateHz: clockRateHz,
      isVideo: isVideo(stream),
      role: stream.role,
      feedback: feedback(ofStream: index))
  }

  /// Validated as RTP: by probation or SDP, or on the same address pair as a validated stream.
  func isConfirmed(_ index: Int) -> Bool {
    let stream = streams[index]
    if stream.confirmation != nil { return true }
    guard !freeSet.contains(index) else { return false }
    let flow = FlowKey(source: stream.key.source, destination: stream.key.destination)
    return confirmedFlows.contains(flow) || confirmedFlows.contains(flow.reversed)
  }

  /// The stream's RTP clock rate, when known (signalled, static or inferred).
  func clockRateHz(of stream: RTPStream) -> Int? {
    let clock = stream.reportedClock
    return clock.source != .unknown ? Int(clock.rateHz) : nil
  }

  /// Video by SDP media kind, or by the 90 kHz clock every RTP video format uses.
  func isVideo(_ stream: RTPStream) -> Bool {
    if stream.reportedClock.rateHz == 90_000 { return true }
    return signalled(stream.key)?.kind == "video"
  }

  /// Starts a new scoring window on every stream (the jitter maximum restarts).
  public mutating func startWindows() {
    for index in streams.indices { streams[index].jitter.startWindow() }
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
