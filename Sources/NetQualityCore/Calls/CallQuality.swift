/// A call's quality as its ticks go by: scored like a peer (the same pooled windows, damped
/// levels, E-model and connection states, `Scorer.scoreRx`/`scoreTx` on the call's own
/// `PeerRecord`), from the call's streams only, and summed per direction for the record.
struct CallQuality {
  /// Made at the call's first media: pools, dampers, the media's connection state, the time at
  /// each level shown.
  var record: PeerRecord?
  /// The first packet of the call's earliest stream (`CallTracker.bind`).
  var firstMedia: CaptureTime?
  /// The latest media or RTCP of the call.
  var lastActivity: CaptureTime?
  /// rx `lost` is the sum of the streams' (`CallState.account`); the rest is summed here.
  var rx = Accumulator()
  var tx = Accumulator()

  /// One direction's sums over the ticks.
  struct Accumulator {
    var packets: Int64 = 0
    var lost: Int64 = 0
    var lostKnown = false
    var jitterMaxMilliseconds: Double?
    var jitterSumMilliseconds = 0.0
    var jitterTicks = 0
    var roundTripSumMilliseconds = 0.0
    var roundTripMaxMilliseconds: Double?
    var roundTripTicks = 0
    var mosMin: Double?
    var mosSum = 0.0
    var mosTicks = 0
    var worst = QualityLevel.unknown

    mutating func add(jitterMilliseconds jitter: Double?) {
      guard let jitter else { return }
      jitterMaxMilliseconds = max(jitterMaxMilliseconds ?? jitter, jitter)
      jitterSumMilliseconds += jitter
      jitterTicks += 1
    }

    mutating func add(roundTripMilliseconds rtt: Double?) {
      guard let rtt else { return }
      roundTripMaxMilliseconds = max(roundTripMaxMilliseconds ?? rtt, rtt)
      roundTripSumMilliseconds += rtt
      roundTripTicks += 1
    }

    mutating func add(_ direction: DirectionSnapshot) {
      worst = max(worst, direction.level)
      guard let mos = direction.meanOpinionScore else { return }
      mosMin = min(mosMin ?? mos, mos)
      mosSum += mos
      mosTicks += 1
    }

    func direction(levelSeconds: [Double]) -> CallRecord.Direction {
      var result = CallRecord.Direction()
      result.packets = packets
      result.lost = lostKnown ? max(0, lost) : nil
      result.maxJitterMilliseconds = jitterMaxMilliseconds
      result.meanJitterMilliseconds =
        jitterTicks > 0 ? jitterSumMilliseconds / Double(jitterTicks) : nil
      result.maxRoundTripMilliseconds = roundTripMaxMilliseconds
      result.meanRoundTripMilliseconds =
        roundTripTicks > 0 ? roundTripSumMilliseconds / Double(roundTripTicks) : nil
      result.minMeanOpinionScore = mosMin
      result.meanMeanOpinionScore = mosTicks > 0 ? mosSum / Double(mosTicks) : nil
      result.worstLevel = worst
      result.levelSeconds = levelSeconds
      return result
    }
  }
}

extension CallTracker {
  /// Scores one call's tick from the window of its streams (`state.window`): the media's
  /// state, each direction's level and MOS as a peer's, and the sums of the record. A call on
  /// hold (SIP said so) is neither scored nor judged by its silence: its seconds are held.
  /// Static, given the tracker's `previousTick`: the tick scores each call in its slot, which
  /// a method of the tracker could not take inout while it reads `self` (`tick`).
  static func score(
    _ state: inout CallState, now: CaptureTime, interval: Double, previousTick: CaptureTime?,
    scorer: Scorer
  ) {
    let window = state.window
    let fromRemote = CaptureTime.later(window.rxLastArrival, window.lastRTCP)
    if let activity = fromRemote ?? window.txLastArrival {
      state.quality.lastActivity = max(state.quality.lastActivity ?? activity, activity)
    }
    // The sums of what flowed, whatever the state (rx lost by sequence is the streams',
    // `CallState.account`); tx lost as the far end's reports counted it (each report once:
    // the ones newer than the last tick).
    state.quality.rx.packets += window.rxAudio.packets + window.rxVideo.packets
    if window.rxStreams > 0 { state.quality.rx.lostKnown = true }
    state.quality.tx.packets += window.txPackets
    var txJitter: Double?
    for report in window.txFeedback where previousTick.map({ report.time > $0 }) ?? true {
      if let coverage = report.coverage {
        state.quality.tx.lost += Int64(coverage.lost)
        state.quality.tx.lostKnown = true
      }
      if let jitter = report.jitterMilliseconds { txJitter = max(txJitter ?? jitter, jitter) }
    }
    guard let lastActivity = state.quality.lastActivity else { return }
    if state.quality.record == nil {
      state.quality.firstMedia = state.quality.firstMedia ?? lastActivity
      state.quality.record = PeerRecord(firstSeen: lastActivity)
    }
    // Moved out, not shared: its pooled windows stay uniquely referenced and change in place
    // (a copy left in the call made each push copy the pool, an allocation per call and tick).
    // Taken, not read and then cleared: the read copied the record (and retained each of its
    // references) for every live call at every tick, 1 % of a tick under churn
    // (perf of `netquality-engine-bench --churn 1000 10 150`, issue 37).
    guard var record = state.quality.record.take() else { return }
    defer { state.quality.record = record }
    if state.held {
      record.levelCounters.record(rx: .unknown, tx: .unknown, seconds: interval, at: now)
      return
    }
    var control: ConnectionTracker.Control?
    if let lastRTCP = window.lastRTCP, let allowance = window.rtcpAllowanceSeconds {
      control = ConnectionTracker.Control(
        lastMedia: window.rxLastArrival, lastRTCP: lastRTCP, allowanceSeconds: allowance)
    }
    // The media's state scores the call (down while disconnected); its outages are its
    // streams' silences (`CallState.noteSilence`), also those of one leg while another flows.
    _ = record.tracker.advance(
      to: now, lastActivity: lastActivity, resumedAt: window.rxResumedAt, endedAt: nil,
      control: control, timers: scorer.configuration.timers)
    let (rtt, _) = scorer.roundTrip(window, probe: nil, now: now)
    var rx = scorer.scoreRx(&record, window, probe: nil, roundTripMilliseconds: rtt)
    var tx = scorer.scoreTx(&record, window, probe: nil, roundTripMilliseconds: rtt, now: now)
    switch record.tracker.state {
    case .disconnected, .timeout:
      (rx, tx) = (.down, .down)
    case .interrupted:
      (rx.meanOpinionScore, tx.meanOpinionScore) = (nil, nil)
    default:
      break
    }
    Scorer.dropOpinionOfSilence(&rx, &tx, window)
    record.levelCounters.record(rx: rx.level, tx: tx.level, seconds: interval, at: now)
    state.quality.rx.add(rx)
    state.quality.tx.add(tx)
    if window.rxStreams > 0 && window.rxAudio.packets + window.rxVideo.packets > 0 {
      state.quality.rx.add(jitterMilliseconds: window.rxJitterMilliseconds)
    }
    state.quality.tx.add(jitterMilliseconds: txJitter)
    state.quality.rx.add(roundTripMilliseconds: rtt)
    state.quality.tx.add(roundTripMilliseconds: rtt)
  }
}
