import NetQualityCore

/// Events and alerts as the engine makes them.
public enum EventBuilder {
  public static func event(
    _ kind: EngineEvent.Kind, peer: String, at time: CaptureTime,
    previousState: ConnectionState? = nil
  ) -> EngineEvent {
    EngineEvent(time: time, kind: kind, peer: peer, previousState: previousState)
  }

  /// A firing alert of `rule` on `peer`'s rx, with the engine's id format.
  public static func alert(
    _ rule: String, peer: String, firedAt start: CaptureTime, summary: String = "rx loss high"
  ) -> Alert {
    Alert(
      id: "\(rule):\(peer):\(start.nanosecondsSinceEpoch / 1_000_000)", rule: rule,
      severity: .warning, labels: ["peer": peer, "direction": "rx"], state: .firing,
      start: start, summary: summary)
  }

  public static func firing(_ alert: Alert) -> EngineEvent {
    EngineEvent(time: alert.start, kind: .alertFiring, peer: peer(alert), alert: alert)
  }

  public static func resolved(_ alert: Alert, at time: CaptureTime) -> EngineEvent {
    var resolved = alert
    resolved.state = .resolved
    resolved.end = time
    return EngineEvent(time: time, kind: .alertResolved, peer: peer(alert), alert: resolved)
  }

  private static func peer(_ alert: Alert) -> String { alert.labels["peer"] ?? "" }
}
