extension StreamAnalyzer {
  /// A snapshot of every RTP stream and the capture counters. Streams still on probation are
  /// reported when another validated stream shares their address/port pair in either
  /// direction (a one-packet stream beside a long one); the rest count as other UDP.
  public func report() -> AnalysisReport {
    var capture = captureCounters
    var reports: [StreamReport] = []
    var rtpPackets: Int64 = 0
    for index in streams.indices where !freeSet.contains(index) {
      let confirmation =
        streams[index].confirmation ?? (streams[index].confirmedByFlow ? .flow : nil)
      guard let confirmation else { continue }
      rtpPackets += streams[index].packets
      reports.append(streamReport(index, confirmation: confirmation))
    }
    capture.rtpPackets = rtpPackets
    capture.nonRTPUDP = capture.udpDatagrams - rtpPackets - capture.rtcpPackets
    reports.sort {
      ($0.firstTime, $0.key.sourceAddress, $0.key.source.port, $0.key.ssrc)
        < ($1.firstTime, $1.key.sourceAddress, $1.key.source.port, $1.key.ssrc)
    }
    var analysis = AnalysisReport(capture: capture, streams: reports)
    analysis.feedbackByPair = feedbackByPair
    return analysis
  }

  func streamReport(_ index: Int, confirmation: StreamConfirmation) -> StreamReport {
    let stream = streams[index]
    let key = streams[index].key
    var clock = stream.reportedClock
    var jitter = stream.jitter
    // A short stream may end before its buffer filled: infer from what there is.
    if clock.source == .unknown, stream.inferenceState == .collecting,
      let inference = inferenceBuffer(ofStream: index)?.inference,
      let rate = inference.estimateHz()
    {
      clock = PayloadClock(rateHz: rate, source: .inferred, isEvent: false)
      jitter = JitterEstimator()
      for sample in 0..<inference.count {
        jitter.update(
          arrivalNanoseconds: inference.arrivals[sample], timestamp: inference.timestamps[sample],
          secondsPerTick: 1 / rate, countsTowardsSummary: true)
      }
    }
    let hasJitter = clock.source != .unknown
    let payloadTypes = stream.payloadTypes
    return StreamReport(
      key: key,
      confirmation: confirmation,
      role: stream.role,
      repairedSSRC: stream.role == .retransmission && stream.repair.repairedIndex >= 0
        ? stream.repair.repairedSSRC : nil,
      direction: configuration.localNetworks.isEmpty
        ? nil
        : StreamDirection(
          source: key.source.address, destination: key.destination.address,
          localNetworks: configuration.localNetworks),
      payloadTypes: payloadTypes,
      encodingName: encodingName(payloadTypes.first, key: key),
      packets: stream.packets,
      payloadBytes: stream.payloadBytes,
      wireBytes: stream.wireBytes,
      truncatedPackets: stream.truncatedPackets,
      firstTime: CaptureTime(nanosecondsSinceEpoch: stream.firstArrivalNanoseconds),
      lastTime: CaptureTime(nanosecondsSinceEpoch: stream.lastArrivalNanoseconds),
      expected: stream.sequence.expected,
      lost: stream.sequence.lost,
      duplicates: stream.sequence.duplicates,
      reordered: stream.sequence.latePackets,
      sequenceResets: stream.sequence.restarts,
      longestLossBurst: stream.sequence.longestLossBurstIncludingWindow,
      clockRateHz: hasJitter ? Int(clock.rateHz) : nil,
      clockRateSource: clock.source,
      maxJitterSeconds: hasJitter ? jitter.maxJitterSeconds : nil,
      meanJitterSeconds: hasJitter ? jitter.meanJitterSeconds : nil,
      lastJitterSeconds: hasJitter ? jitter.jitterSeconds : nil,
      maxDeltaSeconds: Double(stream.maxGapNanoseconds) * 1e-9,
      feedback: feedback(ofStream: index),
      media: mediaCounts(ofStream: index),
      isVideo: stream.mediaSlot.isVideo)
  }

  func encodingName(_ payloadType: Int?, key: StreamKey) -> String? {
    guard let payloadType, let type = UInt8(exactly: payloadType) else { return nil }
    if let format = signalled(key)?.payloadFormats[type] {
      return format.encodingName
    }
    return StaticPayloadTypes.name(type)
  }
}
