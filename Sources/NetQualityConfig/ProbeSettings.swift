import NetQualityCore

/// One probe target of the `probes:` section: a STAMP reflector (RFC 8762) we send to, scored
/// as a peer.
public struct ProbeTargetSettings: Sendable, Equatable {
  public var target: Endpoint
  /// The peer name (default: the address, or its peer group's name).
  public var name: String?
  /// 50 packets/s: a voice stream's rate (20 ms frames, RFC 3551 section 4.5), so the probes
  /// see what a call would.
  public var ratePerSecond = 50.0
  /// UDP payload bytes; 0: the smallest packet of the mode (44 unauthenticated, 112
  /// authenticated, RFC 8762 sections 4.2.1 and 4.2.2).
  public var sizeBytes = 0
  /// 46 (EF): how voice is marked (RFC 4594 section 4.1), so probes get a call's treatment.
  public var dscp = 46
  /// How long an answer may take before the probe counts as lost.
  public var timeoutSeconds = 1.0
  /// HMAC-SHA-256 key file for authenticated mode; "": unauthenticated.
  public var authKeyFile = ""

  public init(target: Endpoint) {
    self.target = target
  }

  /// Payload sizes: up to what fits a 1500-byte MTU without fragments (IPv4 and UDP headers).
  public static let sizeRangeBytes = 44...1472
  public static let rateRangePerSecond: ClosedRange<Double> = 0.1...1000
  public static let timeoutRangeSeconds: ClosedRange<Double> = 0.1...30
}

/// The `reflector:` section: answer other agents' (or any STAMP sender's) probes.
public struct ReflectorSettings: Sendable, Equatable {
  public var enabled = false
  /// 862: the port IANA assigned to TWAMP-Test and RFC 8762 section 4.1 names for STAMP.
  public var listen = Endpoint(address: IPAddress(ipv4: 0, 0, 0, 0), port: 862)
  /// HMAC-SHA-256 key file: only authenticated probes answered; "": unauthenticated.
  public var authKeyFile = ""
  /// Source networks answered; empty: any.
  public var allow: [NetworkPrefix] = []
  /// Per-source token bucket: packets/s and burst. 200/s covers four senders' voice-rate
  /// probes behind one NAT address; more is refused and counted, never amplified.
  public var rateLimitPerSecond = 200.0
  public var burst = 400
  /// Set the S bit (RFC 4656 section 4.1.2): only when this host's clock is disciplined (NTP
  /// or PTP), since senders then take T2 - T1 as a one-way delay.
  public var clockSynchronized = false

  public init() {}
}
