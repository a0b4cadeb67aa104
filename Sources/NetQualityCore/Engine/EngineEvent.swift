/// Something that happened between two ticks, for logs, metrics, dashboards and history.
public struct EngineEvent: Sendable, Equatable {
  public enum Kind: String, Sendable, Codable {
    case connected
    case interrupted
    case disconnected
    case timeout
    case recovered
    case ended
    /// Media stopped while RTCP goes on (see ConnectionState.held).
    case held
    /// The link of the capture interface the peer is reached through went down (or came back).
    case linkDown = "link_down"
    case linkUp = "link_up"
    case alertFiring = "alert_firing"
    case alertResolved = "alert_resolved"
  }

  public var time: CaptureTime
  public var kind: Kind
  public var peer: String
  /// For recovered: the state it recovered from.
  public var previousState: ConnectionState?
  /// For alert events: the alert.
  public var alert: Alert? {
    get { alertBox?.value }
    set { alertBox = newValue.map(OutOfLine.init) }
  }
  /// For ended: the signal that ended the call.
  public var endReason: SessionEnd.Reason?
  /// The alert lives out of line: a tick in which 100,000 peers connect has 100,000 events,
  /// most without an alert, and inline it would be most of each event's size.
  private var alertBox: OutOfLine<Alert>?

  public init(
    time: CaptureTime, kind: Kind, peer: String, previousState: ConnectionState? = nil,
    alert: Alert? = nil, endReason: SessionEnd.Reason? = nil
  ) {
    self.time = time
    self.kind = kind
    self.peer = peer
    self.previousState = previousState
    self.alertBox = alert.map(OutOfLine.init)
    self.endReason = endReason
  }
}
