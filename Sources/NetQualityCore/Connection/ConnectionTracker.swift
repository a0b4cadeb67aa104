/// The connection state machine of one peer or stream. Fed the time of its latest traffic and
/// whether it said goodbye, it moves between states and says which transition happened, with
/// the moment the threshold was crossed.
public struct ConnectionTracker: Sendable, Equatable {
  public private(set) var state: ConnectionState = .connecting
  /// When the current state began.
  public private(set) var since: CaptureTime
  private var lastActivity: CaptureTime

  public init(firstSeen: CaptureTime) {
    since = firstSeen
    lastActivity = firstSeen
  }

  public enum Transition: Sendable, Equatable {
    case connected
    case interrupted
    case disconnected
    case timeout
    case recovered(after: ConnectionState)
    case ended
  }

  /// Moves the machine to `now`. `lastActivity` is the latest traffic that proves the other end
  /// alive, `resumedAt` the first of it after the latest silence (when known); `endedAt` the BYE
  /// time, when one came after that traffic. Returns the transitions, each with the moment it
  /// happened (a threshold crossing lies between two ticks).
  public mutating func advance(
    to now: CaptureTime, lastActivity activity: CaptureTime, resumedAt: CaptureTime? = nil,
    endedAt: CaptureTime?, timers: ConnectionTimers
  ) -> [(Transition, CaptureTime)] {
    var transitions: [(Transition, CaptureTime)] = []
    let resumed = activity > lastActivity
    // Traffic came back at the first packet after the silence, not at the latest one.
    let comeback = resumedAt.map { $0 > lastActivity ? $0 : activity } ?? activity
    lastActivity = max(lastActivity, activity)
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
      if resumed || state == .connecting {
        let previous = state
        state = .connected
        since = previous == .connecting ? since : lastActivity
        transitions.append((.connected, since))
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
    // Silence thresholds, in order, each at the moment it was crossed.
    let silence = now.seconds(since: lastActivity)
    let steps: [(ConnectionState, Double, Transition)] = [
      (.interrupted, timers.interruptedAfterSeconds, .interrupted),
      (.disconnected, timers.disconnectedAfterSeconds, .disconnected),
      (.timeout, timers.timeoutAfterSeconds, .timeout),
    ]
    for (target, threshold, transition) in steps
    where silence >= threshold && rank(state) < rank(target) {
      state = target
      since = lastActivity.advanced(bySeconds: threshold)
      transitions.append((transition, since))
    }
    return transitions
  }

  private func rank(_ state: ConnectionState) -> Int {
    switch state {
    case .connecting, .connected, .ended: 0
    case .interrupted: 1
    case .disconnected: 2
    case .timeout: 3
    }
  }
}
