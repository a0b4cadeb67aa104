/// How long the notifier waits before posting again after every Alertmanager failed: 1 s,
/// doubling at each failure in a row, never more than `maxSeconds` (the history writer's
/// schedule, `HistoryRecorder`); back to the start after a delivery.
struct AlertmanagerBackoff: Sendable, Equatable {
  let initialSeconds: Double
  /// 30 s, and never more than the resend interval: a firing alert is due again by then
  /// anyway.
  let maxSeconds: Double
  private(set) var failuresInARow = 0

  init(resendIntervalSeconds: Double, initialSeconds: Double = 1) {
    self.initialSeconds = initialSeconds
    maxSeconds = max(initialSeconds, min(30, resendIntervalSeconds))
  }

  /// The wait after one more failure.
  mutating func failed() -> Double {
    failuresInARow += 1
    var seconds = initialSeconds
    for _ in 1..<failuresInARow where seconds < maxSeconds { seconds *= 2 }
    return min(seconds, maxSeconds)
  }

  mutating func succeeded() { failuresInARow = 0 }
}
