/// Everything the engine's judgement depends on; the agent fills it from YAML, `analyze` from
/// flags and defaults.
public struct EngineConfiguration: Sendable {
  /// The scoring window: the RTC SDKs report every 2 s.
  public var tickIntervalSeconds = 2.0
  /// Addresses that belong to this host: streams from them are tx, to them rx.
  public var localNetworks: [NetworkPrefix] = []
  public var quality = QualityModel()
  public var timers = ConnectionTimers()
  public var alertRules = AlertRule.builtIn
  /// A stream silent this long after its timeout is forgotten (and a peer with no stream left).
  /// 60 s: Prometheus' longest common scrape interval (1 m), so every scrape sees a timed-out
  /// peer at least once; a TURN or SFU host with 1,000 new peers a second holds 120 s of them
  /// (timeout and grace) instead of 360 s, and has its memory back within about 2 minutes of
  /// the churn's end (issue 37; it was 300 s).
  public var forgetAfterTimeoutSeconds = 60.0
  public var analyzer = StreamAnalyzer.Configuration()
  /// Upper bounds of the probe round-trip histogram, seconds, ascending
  /// (`netquality_probe_rtt_seconds`; `DelayHistogram.roundTripBoundsSeconds` says why these).
  public var probeRoundTripBoundsSeconds = DelayHistogram.roundTripBoundsSeconds
  /// Call detection: how many calls at once, how users are kept (see `CallSettings`).
  public var calls = CallSettings()
  /// Named groups of remote addresses: a peer in a group is reported under the group's name.
  public var peerGroups: [(name: String, networks: [NetworkPrefix])] = []

  /// The peer name of a remote address: its group's name, or the address.
  public func peerName(_ address: IPAddress) -> String {
    peerGroups.first { group in group.networks.contains { $0.contains(address) } }?.name
      ?? address.description
  }

  /// Capture interfaces the engine tells apart: a peer's record keeps the interfaces its
  /// streams were seen on in 64 bits (`InterfaceSet`), so the agent captures on at most these
  /// (each is also a thread and a capture ring of its own; `any` captures every interface at
  /// once).
  public static let maxCaptureInterfaces = InterfaceSet.capacity

  public init() {}
}
