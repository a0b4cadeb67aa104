import NetQualityCore

/// What a STAMP reflector accepts and how it answers. The defaults are the `netquality reflect`
/// defaults.
public struct ReflectorConfiguration: Sendable {
  /// Keys for authenticated mode (RFC 8762 section 4.4); none means unauthenticated mode. A
  /// request is accepted when its HMAC matches any of them, and the reply is signed with that
  /// key. Each key is one HMAC to try per bad packet, hence `STAMPKeyFile.maximumKeys`.
  public var keys: [STAMPKey] = []
  /// Source networks allowed to use the reflector; empty allows every source.
  public var allowedNetworks: [NetworkPrefix] = []
  /// Per source (its address and port, one session), in hashed slots that never forget
  /// (`SourceRateLimiter`): 200 packets/s with bursts of 400. A probe session sends tens of
  /// packets a second with room to spare. Per endpoint, not per address, so that a spoofer who
  /// knows a sender's address but not its ephemeral port cannot spend the sender's budget
  /// (issue 39: 400 spoofed packets/s "from" a prober's address made 95–99 % of its probes
  /// look lost). The burst is 2 s of the rate: a sender's start-up train or a catch-up after
  /// a stall passes.
  public var ratePerSourcePacketsPerSecond = 200.0
  public var burstPerSourcePackets = 400.0
  /// All ports of one address together: `addressRateMultiplier` times the per-source rate
  /// and burst (800/s, bursts of 1,600 by default). This bounds what a spoofer can aim at one
  /// victim address through many source ports (never larger than what it sent itself), and
  /// leaves four sessions' worth of room, so that a spoofer must send faster than that to
  /// crowd out a real session of the address.
  public static let addressRateMultiplier = 4.0
  /// All sources together: 10,000 packets/s with bursts of 20,000, the per-source rate for 50
  /// busy senders. Caps the reflector's work when many (possibly spoofed) sources each stay
  /// under their own limit.
  public var rateTotalPacketsPerSecond = 10_000.0
  public var burstTotalPackets = 20_000.0
  /// Sessions remembered (stateful mode, RFC 8762 section 4.3): keyed by source address and
  /// port, the least recently used forgotten first beyond this.
  public var maximumSessions = 4_096
  /// A session unused this long is forgotten, and the sender's next packet starts a new one
  /// at reflector sequence number 0. Far longer than any sane probe interval. (A source's rate
  /// limit is never forgotten: `SourceRateLimiter`.)
  public var sessionIdleSeconds = 300.0
  /// Larger requests are refused: 9,000 bytes, a jumbo frame's payload, covers a sender
  /// padding to test any common MTU.
  public var maximumPacketLength = 9_000
  /// Refuse requests from UDP port 862, the STAMP well-known port (RFC 8762 section 4): a
  /// spoofed request "from" another reflector's port would make the two reflect each other's
  /// replies in a loop. Senders use ephemeral ports. (Port 0 is always refused: it cannot be
  /// answered.)
  public var refusesWellKnownSourcePort = true
  /// The reflector's own Error Estimate (RFC 8762 section 4.3.1): S only when the operator
  /// says the clock is synchronised; NTP format.
  public var errorEstimate = STAMPErrorEstimate(
    seconds: ReflectorConfiguration.defaultErrorSeconds, isSynchronized: false)

  /// The estimate a reflector states for its clock: 1 ms, typical of an NTP-disciplined host
  /// (and a lower bound for one that is not, which also clears S).
  public static let defaultErrorSeconds = 0.001

  public init() {}

  public var mode: STAMPMode { keys.isEmpty ? .unauthenticated : .authenticated }
}
