import NetQualityCore

/// What changes only at a tick: the host's levels, the fleet series, the peers with series of
/// their own, the probes, the opt-in stream series and the alerts. The bulk of `/metrics`, the
/// same for every scrape until the next tick: the agent renders it once per tick and serves the
/// text (`Rendered`) at every scrape.
public struct TickMetrics: MetricsCollector {
  /// The tick's collectors, in the order of `/metrics`.
  public static let parts: [any MetricsCollector.Type] = [
    HostCollector.self, FleetCollector.self, PeerCollector.self, MediaCollector.self,
    ProbeCollector.self, StreamCollector.self, AlertCollector.self, CallsCollector.self,
  ]
  public static let families = parts.flatMap { $0.families }

  /// The configuration's `metrics` section: which series and how many.
  public struct Settings: Sendable {
    public var perStream = false
    public var maxStreamSeries = 1000
    /// Peers with series of their own (the pinned, then the worst); the others are counted in
    /// the fleet series only.
    public var maxPeerSeries = 200
    /// Peers always given series of their own: the configured peer groups.
    public var pinnedPeers: Set<String> = []
    /// Every alert rule in effect (name, severity), for `netquality_alerts_fired_total`.
    public var alertRules: [(name: String, severity: String)] = []

    public init(
      perStream: Bool = false, maxStreamSeries: Int = 1000, maxPeerSeries: Int = 200,
      pinnedPeers: Set<String> = [], alertRules: [(name: String, severity: String)] = []
    ) {
      self.perStream = perStream
      self.maxStreamSeries = maxStreamSeries
      self.maxPeerSeries = maxPeerSeries
      self.pinnedPeers = pinnedPeers
      self.alertRules = alertRules
    }
  }

  /// The text of a tick's metrics rendered earlier, served as it is.
  public struct Rendered: MetricsCollector {
    public static let families = TickMetrics.families
    public var text: String

    public init(_ text: String) {
      self.text = text
    }

    public func collect(into out: inout MetricsWriter) { out.append(text) }
  }

  let collectors: [any MetricsCollector]
  /// The peers given series of their own when not every peer has them (empty when all have):
  /// the next tick's `incumbents`.
  public let seriesPeerNames: Set<String>

  /// The tick's collectors; without a snapshot (no tick yet), the alerts only. `worstOrder` is
  /// the snapshot's peers' indices worst first when the caller has them sorted already
  /// (`PeerCollector.seriesPeers`); `incumbents` the previous tick's `seriesPeerNames`, which
  /// keep their series against peers at the same level; `levelCounters` gives the time at each level of the peers
  /// with series of their own (the scorer's `levelCounters(of:)`, asked for those peers only).
  public init(
    _ snapshot: Snapshot?, alerts: [Alert], settings: Settings, worstOrder: [Int]? = nil,
    incumbents: Set<String> = [],
    levelCounters: ([String]) -> [String: PeerLevelCounters] = { _ in [:] }
  ) {
    guard let snapshot else {
      collectors = [AlertCollector(alerts: alerts)]
      seriesPeerNames = []
      return
    }
    let shown = PeerCollector.seriesPeers(
      snapshot.peers, limit: settings.maxPeerSeries, pinned: settings.pinnedPeers,
      worstOrder: worstOrder, incumbents: incumbents)
    seriesPeerNames = shown.count < snapshot.peers.count ? Set(shown.map(\.peer)) : []
    var collectors: [any MetricsCollector] = [
      HostCollector(snapshot),
      FleetCollector(
        peers: snapshot.peers, shown: shown.count, counters: snapshot.counters,
        alertRules: settings.alertRules),
      PeerCollector(peers: shown, levelCounters: levelCounters(shown.map(\.peer))),
      MediaCollector(shown: shown, fleet: snapshot.media.fleet),
      ProbeCollector(peers: snapshot.peers),
    ]
    if settings.perStream {
      collectors.append(
        StreamCollector(streams: snapshot.streams, maxSeries: settings.maxStreamSeries))
    }
    collectors.append(
      AlertCollector(
        alerts: alerts,
        shownPeers: shown.count < snapshot.peers.count ? Set(shown.map(\.peer)) : nil))
    collectors.append(CallsCollector(snapshot.calls))
    self.collectors = collectors
  }

  public func collect(into out: inout MetricsWriter) {
    for collector in collectors { collector.collect(into: &out) }
  }

  /// The tick's part of `/metrics`, as a scrape serves it.
  public func render() -> String {
    var out = MetricsWriter()
    collect(into: &out)
    return out.text
  }
}
