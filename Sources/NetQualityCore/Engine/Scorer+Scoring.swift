extension Scorer {
  /// The peer's round trip: RTCP's while fresh; failing that (SRTCP) the ICE checks'; failing
  /// that the window's probes'.
  func roundTrip(_ window: PeerWindow, probe: BoxedProbe?, now: CaptureTime)
    -> (Double?, RoundTripSource?)
  {
    for (sample, source) in [
      (window.roundTrip, RoundTripSource.rtcp), (window.stunRoundTrip, .stun),
    ] {
      if let sample,
        now.seconds(since: sample.time) <= configuration.quality.feedbackStaleSeconds
      {
        return (sample.milliseconds, source)
      }
    }
    if let probeRoundTrip = probe?.value.roundTripMilliseconds { return (probeRoundTrip, .probe) }
    return (nil, nil)
  }

  /// rx: what we measured on the peer's streams, and the backward direction of our probes
  /// (reflector to us), each pooled over the scoring windows; the worse of them.
  func scoreRx(
    _ record: inout PeerRecord, _ window: PeerWindow, probe: BoxedProbe?,
    roundTripMilliseconds rtt: Double?
  ) -> DirectionSnapshot {
    let model = configuration.quality
    record.rxAudio.push(
      packets: window.rxAudio.packets, expected: window.rxAudio.expected, lost: window.rxAudio.lost,
      keep: model.scoringWindows)
    record.rxVideo.push(
      packets: window.rxVideo.packets, expected: window.rxVideo.expected, lost: window.rxVideo.lost,
      keep: model.scoringWindows)
    record.rxPacketsTotal = window.rxPacketsTotal
    record.rxLostTotal = window.rxLostTotal
    var candidates: [Candidate] = []
    for (pool, isVideo) in [(record.rxAudio, false), (record.rxVideo, true)] where pool.packets > 0
    {
      let inputs = QualityModel.Inputs(
        packets: pool.packets, lossRatio: pool.lossRatio,
        jitterMilliseconds: window.rxJitterMilliseconds ?? 0, roundTripMilliseconds: rtt,
        isVideo: isVideo)
      candidates.append(Candidate(inputs: inputs, enoughPackets: nil, source: .rtp))
    }
    if let probe {
      candidates += probeCandidate(
        &record.probeRx, probe.value.window.scoredBackward,
        jitterMilliseconds: probe.value.backwardJitterMilliseconds, probe: probe.value,
        roundTripMilliseconds: rtt)
    }
    return direction(worst(candidates), damper: &record.rxDamper)
  }

  /// tx: what the peer reported about our streams (RFC 3550 receiver reports) while fresh, and
  /// the forward direction of our probes (us to the reflector); the worse of them.
  func scoreTx(
    _ record: inout PeerRecord, _ window: PeerWindow, probe: BoxedProbe?,
    roundTripMilliseconds rtt: Double?, now: CaptureTime
  ) -> DirectionSnapshot {
    record.txPacketsTotal = window.txPacketsTotal
    var candidates: [Candidate] = []
    if let reports = reportCandidate(record, window, roundTripMilliseconds: rtt, now: now) {
      candidates.append(reports)
    }
    if let probe {
      candidates += probeCandidate(
        &record.probeTx, probe.value.window.scoredForward,
        jitterMilliseconds: probe.value.forwardJitterMilliseconds, probe: probe.value,
        roundTripMilliseconds: rtt)
    }
    return direction(worst(candidates), damper: &record.txDamper)
  }

  /// The peer's receiver reports about our streams as a tx candidate, or nil when they say
  /// nothing of this window:
  ///
  /// * only in a window in which we sent the peer media: with nothing sent (a call on hold)
  ///   there is nothing to judge, however recent the last report about what went before;
  /// * from the fresh reports (`feedbackStaleSeconds`) that cover packets beyond the report
  ///   before them (`ReportCoverage`): a report whose extended highest sequence number did not
  ///   advance counts nothing, so after a hold the first report that counts new packets scores
  ///   them, whatever the reports of the hold said;
  /// * not a report whose interval began before the last recovery from an outage (interrupted
  ///   or worse): its loss spans the outage, which the connection state already told. A hold
  ///   is no outage: what the first report after it covers was sent after it.
  ///
  /// Loss is the worst stream's: lost over covered (the report's fraction lost for a stream's
  /// first report, whose start is unknown); `packets` is what the reports cover.
  private func reportCandidate(
    _ record: PeerRecord, _ window: PeerWindow, roundTripMilliseconds rtt: Double?,
    now: CaptureTime
  ) -> Candidate? {
    let model = configuration.quality
    guard window.txPackets > 0 else { return nil }
    let reports = window.txFeedback.filter { report in
      guard now.seconds(since: report.time) <= model.feedbackStaleSeconds else { return false }
      if let coverage = report.coverage, coverage.packets == 0 { return false }
      guard let recovered = record.recoveredAt else { return true }
      return (report.since ?? report.time) >= recovered
    }
    guard !reports.isEmpty else { return nil }
    let covered = reports.reduce(Int64(0)) { $0 + Int64($1.coverage?.packets ?? 0) }
    // A stream's first report speaks for packets the peer counted, how many is not known.
    let firstReports = reports.contains { $0.coverage == nil }
    let inputs = QualityModel.Inputs(
      packets: firstReports ? max(covered, window.txPackets) : covered,
      lossRatio: reports.map { $0.coverage?.lossRatio ?? $0.fractionLost }.max() ?? 0,
      jitterMilliseconds: reports.compactMap(\.jitterMilliseconds).max() ?? 0,
      roundTripMilliseconds: rtt, isVideo: window.txVideo)
    return Candidate(inputs: inputs, enoughPackets: firstReports ? true : nil, source: .rtp)
  }

  /// One source's figures for the quality model.
  struct Candidate {
    var inputs: QualityModel.Inputs
    /// nil: enough when the pooled packets reach the model's minimum.
    var enoughPackets: Bool?
    var source: MeasurementSource
  }

  /// A probe direction scored like a voice stream (probes go at a voice stream's rate): its
  /// pooled loss, its jitter, and the probes' own round trip, whose half is the E-model's
  /// network delay as with RTCP's.
  private func probeCandidate(
    _ pool: inout WindowPool, _ scored: (expected: Int64, lost: Int64),
    jitterMilliseconds: Double?, probe: ProbeSnapshot, roundTripMilliseconds rtt: Double?
  ) -> [Candidate] {
    let (expected, lost) = scored
    // After an outage (its loss already out of `scored`), the windows before it do not score
    // the path after it, as receiver reports older than a recovery do not (scoreTx): the
    // connection state told the outage, the level judges the path as it is now.
    if probe.window.outagesEnded > 0 { pool = WindowPool() }
    pool.push(
      packets: expected, expected: expected, lost: lost, keep: configuration.quality.scoringWindows)
    guard pool.packets > 0 else { return [] }
    let inputs = QualityModel.Inputs(
      packets: pool.packets, lossRatio: pool.lossRatio,
      jitterMilliseconds: jitterMilliseconds ?? 0,
      roundTripMilliseconds: probe.roundTripMilliseconds ?? rtt, isVideo: false)
    return [Candidate(inputs: inputs, enoughPackets: nil, source: .probe)]
  }

  /// The worst-scoring candidate (unknown counts as no information).
  private func worst(_ candidates: [Candidate]) -> (QualityModel.Score, Candidate?) {
    let model = configuration.quality
    var result = QualityModel.Score(
      level: .unknown, rating: nil, meanOpinionScore: nil, oneWayDelayMilliseconds: nil,
      limitedBy: nil)
    var chosen: Candidate?
    for candidate in candidates {
      let enough = candidate.enoughPackets ?? (candidate.inputs.packets >= model.minimumPackets)
      let score = model.score(candidate.inputs, enoughPackets: enough)
      if chosen == nil || score.level.worse(result.level) != result.level {
        result = score
        chosen = candidate
      }
    }
    return (result, chosen)
  }

  private func direction(
    _ scored: (QualityModel.Score, Candidate?), damper: inout LevelDamper
  ) -> DirectionSnapshot {
    let (raw, candidate) = scored
    let level = damper.update(
      raw.level, worsenAfter: configuration.quality.worsenAfterTicks,
      worsenOneLevelAfter: configuration.quality.worsenOneLevelAfterTicks,
      improveAfter: configuration.quality.improveAfterTicks,
      improveOneLevelAfter: configuration.quality.improveOneLevelAfterTicks)
    return DirectionSnapshot(
      level: level, rawLevel: raw.level, inputs: candidate?.inputs, rating: raw.rating,
      meanOpinionScore: raw.meanOpinionScore, oneWayDelayMilliseconds: raw.oneWayDelayMilliseconds,
      limitedBy: raw.limitedBy, source: candidate?.source)
  }
}
