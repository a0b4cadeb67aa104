/// A peer's (or stream's) connection, driven by time without traffic.
public enum ConnectionState: String, Sendable, Codable, CaseIterable {
  /// First packets seen, nothing validated yet.
  case connecting
  case connected
  /// No traffic for the interruption interval (default 4 s).
  case interrupted
  /// No traffic for the disconnect interval (default 12 s): quality becomes down.
  case disconnected
  /// No traffic for the timeout interval (default 60 s): the peer is given up.
  case timeout
  /// RTCP BYE: a clean end, not an alert.
  case ended
  /// The media stopped for the interruption interval while RTCP keeps coming: a call on hold
  /// or muted, alive. Last, so that the other states keep their numbers.
  case held

  /// The number exported as a metric: the order of the cases.
  public var number: Int {
    ConnectionState.allCases.firstIndex(of: self) ?? 0
  }
}

/// The silence intervals of the state machine, seconds.
public struct ConnectionTimers: Sendable, Equatable {
  public var interruptedAfterSeconds = 4.0
  /// The RTC SDKs' Disconnected after 12 s without connection.
  public var disconnectedAfterSeconds = 12.0
  public var timeoutAfterSeconds = 60.0

  public init() {}
}
