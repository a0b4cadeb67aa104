/// A signal in the clear that a call with an address ended.
public struct SessionEnd: Sendable, Equatable {
  public enum Reason: String, Sendable {
    /// A DTLS alert record on the flow (close_notify at a normal hangup).
    case dtlsAlert = "dtls_alert"
    /// The TURN client released its allocation (Refresh, LIFETIME 0).
    case turnAllocationReleased = "turn_allocation_released"
    /// Every stream of the peer ended with an RTCP BYE.
    case rtcpBye = "rtcp_bye"
  }

  public var time: CaptureTime
  public var reason: Reason
}
