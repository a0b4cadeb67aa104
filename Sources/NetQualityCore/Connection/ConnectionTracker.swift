/// The connection state machine of one peer or stream. Fed the time of its latest traffic and
/// whether it said goodbye, it moves between states and says which transition happened, with
/// the moment the threshold was crossed.
public struct ConnectionTracker: Sendable, Equatable {
  /// When the current state began.
  public private(set) var since: CaptureTime
  private var lastActivity: CaptureTime
  /// The latest media (RTP), apart from RTCP; the same as lastActivity without `Control`.
  private var lastMedia: CaptureTime
  // Last, so that an optional tracker (the scorer keeps one per stream) takes 32 bytes, not 40.
  public private(set) var state: ConnectionState = .connecting

  public init(firstSeen: CaptureTime) {
    since = firstSeen
    lastActivity = firstSeen
    lastMedia = firstSeen
  }

  /// How long after the last RTP an RTCP packet must come to show the sender alive with its
  /// media stopped (held). A report sent with the last media, or the last packet through before
  /// a cut, comes within a packet interval of it (RFC 3551 section 4.5: at most 120 ms for
  /// audio frames): it shows nothing, and a blackout that begins just after one is no hold.
  static let heldEvidenceSeconds = 1.0

  /// The other end's RTCP, apart from its media, and how long its silence may last (its
  /// `RTCPCadence` allowance). Media that stops while RTCP goes on is a hold, not an outage.
  public struct Control: Sendable, Equatable {
    /// The latest RTP (nil: none yet, and then no hold: a receive-only end is alive by its
    /// RTCP on the same cadence).
    public var lastMedia: CaptureTime?
    public var lastRTCP: CaptureTime
    public var allowanceSeconds: Double

    public init(lastMedia: CaptureTime?, lastRTCP: CaptureTime, allowanceSeconds: Double) {
      self.lastMedia = lastMedia
      self.lastRTCP = lastRTCP
      self.allowanceSeconds = allowanceSeconds
    }
  }

  public enum Transition: Sendable, Equatable {
    case connected
    case interrupted
    case disconnected
    case timeout
    case recovered(after: ConnectionState)
    case ended
    case held
  }

  /// Moves the machine to `now`. `lastActivity` is the latest traffic that proves the other end
  /// alive, `resumedAt` the first of it after the latest silence (when known); `endedAt` the BYE
  /// time, when one came after that traffic; `control` its RTCP apart from its media, when it
  /// sends any. Returns the transitions, each with the moment it happened (a threshold crossing
  /// lies between two ticks). `heardFrom` false: nothing has come from the other end yet (a
  /// probe target that never answered), so it is not connected until something does; the
  /// silence marks still count from `lastActivity`.
  ///
  /// With RTCP whose cadence is known, the interruption waits for the report that is due: it
  /// comes at the later of the media's silence reaching the interruption interval and the RTCP's
  /// silence reaching its allowance. Until then, media silent for the interruption interval
  /// with RTCP after it is `held`. Disconnect and timeout come after that much silence of
  /// everything, as without RTCP (the SDKs' 12 s), and the interruption never after the
  /// disconnect.
  public mutating func advance(
    to now: CaptureTime, lastActivity activity: CaptureTime, resumedAt: CaptureTime? = nil,
    endedAt: CaptureTime?, control: Control? = nil, heardFrom: Bool = true,
    timers: ConnectionTimers
  ) -> [(Transition, CaptureTime)] {
    var transitions: [(Transition, CaptureTime)] = []
    let resumed = activity > lastActivity
    // Traffic came back at the first packet after the silence, not at the latest one.
    let comeback = resumedAt.map { $0 > lastActivity ? $0 : activity } ?? activity
    lastActivity = max(lastActivity, activity)
    let media = control.map { $0.lastMedia ?? lastMedia } ?? lastActivity
    let mediaResumed = media > lastMedia
    lastMedia = max(lastMedia, media)
    if let endedAt, endedAt >= lastActivity {
      if state != .ended {
        state = .ended
        since = endedAt
        transitions.append((.ended, endedAt))
      }
      return transitions
    }
    switch state {
    case .connecting, .ended:
      if resumed || (state == .connecting && heardFrom) {
        let previous = state
        state = .connected
        since = previous == .connecting ? since : lastActivity
        transitions.append((.connected, since))
      }
    case .held:
      if mediaResumed {
        transitions.append((.recovered(after: .held), comeback))
        state = .connected
        since = comeback
      }
    case .interrupted, .disconnected, .timeout:
      if resumed {
        transitions.append((.recovered(after: state), comeback))
        state = .connected
        since = comeback
      }
    case .connected:
      break
    }
    // Silence thresholds, in order, each at the moment it was crossed. Silences are compared
    // in seconds (a crossing time near the end of the range saturates and cannot be compared).
    let silence = now.seconds(since: lastActivity)
    let mediaSilence = now.seconds(since: lastMedia)
    var interrupted = silence >= timers.interruptedAfterSeconds
    if let control {
      // Never later than the disconnect, which waits for nothing.
      let rtcpWait = max(timers.interruptedAfterSeconds, control.allowanceSeconds)
      interrupted =
        (mediaSilence >= timers.interruptedAfterSeconds
          && now.seconds(since: control.lastRTCP) >= rtcpWait)
        || silence >= timers.disconnectedAfterSeconds
    }
    if state == .connected, let control, control.lastMedia != nil,
      control.lastRTCP.seconds(since: lastMedia) >= Self.heldEvidenceSeconds,
      mediaSilence >= timers.interruptedAfterSeconds, !interrupted
    {
      state = .held
      since = lastMedia.advanced(bySeconds: timers.interruptedAfterSeconds)
      transitions.append((.held, since))
    }
    // The thresholds in their order, each at the moment it was crossed, worked out only once
    // crossed: an array of the three steps with their times, made at every call (per stream,
    // peer and call at every tick), was 7 % of a tick under churn, its allocation and
    // release most of it (perf --call-graph dwarf of
    // `netquality-engine-bench --churn 1000 10 110`, issue 37).
    if interrupted && rank(state) < rank(.interrupted) {
      state = .interrupted
      since = interruptionTime(control: control, timers: timers)
      transitions.append((.interrupted, since))
    }
    if silence >= timers.disconnectedAfterSeconds && rank(state) < rank(.disconnected) {
      state = .disconnected
      since = lastActivity.advanced(bySeconds: timers.disconnectedAfterSeconds)
      transitions.append((.disconnected, since))
    }
    if silence >= timers.timeoutAfterSeconds && rank(state) < rank(.timeout) {
      state = .timeout
      since = lastActivity.advanced(bySeconds: timers.timeoutAfterSeconds)
      transitions.append((.timeout, since))
    }
    return transitions
  }

  /// When the silence became an interruption: its threshold after the last activity, or with
  /// RTCP (`control`) after both the last media and the RTCP allowance, never later than the
  /// disconnect.
  private func interruptionTime(control: Control?, timers: ConnectionTimers) -> CaptureTime {
    guard let control else {
      return lastActivity.advanced(bySeconds: timers.interruptedAfterSeconds)
    }
    let rtcpWait = max(timers.interruptedAfterSeconds, control.allowanceSeconds)
    return min(
      max(
        lastMedia.advanced(bySeconds: timers.interruptedAfterSeconds),
        control.lastRTCP.advanced(bySeconds: rtcpWait)),
      lastActivity.advanced(bySeconds: timers.disconnectedAfterSeconds))
  }

  private func rank(_ state: ConnectionState) -> Int {
    switch state {
    case .connecting, .connected, .ended, .held: 0
    case .interrupted: 1
    case .disconnected: 2
    case .timeout: 3
    }
  }
}
