import NetQualityCore

/// Series that hold for any fleet size: how many peers are at each level and in each state,
/// histograms of MOS, loss, jitter and round trip across peers, and the fleet's counters. With
/// these, per-peer series are needed only for the peers that matter (`PeerCollector.seriesPeers`),
/// so the exposition stays within its budget (docs/metrics.md) whether 10 or 100,000 peers are
/// tracked.
public struct FleetCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .peers, .peersInState, .peerSeriesOmitted, .peersMOS, .peersLossRatio, .peersJitterSeconds,
    .peersRTTSeconds, .peersQualitySecondsTotal, .peersStateTransitionsTotal, .alertsFiredTotal,
  ]

  /// Every peer of the tick.
  public var peers: [PeerSnapshot]
  /// How many of them have series of their own.
  public var shown: Int
  public var counters: EngineCounters
  /// Every alert rule in effect, for `alerts_fired_total` (0 until a rule fires).
  public var alertRules: [(name: String, severity: String)]

  public init(
    peers: [PeerSnapshot], shown: Int, counters: EngineCounters,
    alertRules: [(name: String, severity: String)]
  ) {
    self.peers = peers
    self.shown = shown
    self.counters = counters
    self.alertRules = alertRules
  }

  /// Upper bounds of the fleet histograms. MOS: the G.107 Annex B MOS of R = 50, 60, 70, 80,
  /// 90 (2.58, 3.10, 3.60, 4.03, 4.34; the quality model's level floors) and 1, 2 below them.
  /// Loss: 0.1 % to 20 %, around G.113 Appendix I's packet-loss robustness. Jitter: the model's
  /// level ceilings (30, 50, 100, 150 ms) and 10, 300 ms. Round trip: G.114's 150 ms (one way
  /// 75 ms each) and 400 ms marks with steps between.
  static let mosBounds = [1.0, 2.0, 2.58, 3.1, 3.6, 4.03, 4.34]
  static let lossBounds = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
  static let jitterBoundsSeconds = [0.01, 0.03, 0.05, 0.1, 0.15, 0.3]
  static let roundTripBoundsSeconds = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.8]

  public func collect(into out: inout MetricsWriter) {
    let tally = Tally(peers)
    out.family(.peers)
    for (direction, counts) in [("rx", tally.rxLevels), ("tx", tally.txLevels)] {
      for quality in QualityLevel.allCases {
        out.sample(
          .peers, [("direction", direction), ("level", quality.name)],
          Double(counts[Int(quality.rawValue)]))
      }
    }
    out.family(.peersInState)
    for state in ConnectionState.allCases {
      out.sample(.peersInState, [("state", state.rawValue)], Double(tally.states[state] ?? 0))
    }
    out.family(.peerSeriesOmitted)
    out.sample(.peerSeriesOmitted, [], Double(peers.count - shown))

    out.family(.peersMOS)
    out.buckets(.peersMOS, [("direction", "rx")], Self.mosBounds, tally.rxMOS)
    out.buckets(.peersMOS, [("direction", "tx")], Self.mosBounds, tally.txMOS)
    out.family(.peersLossRatio)
    out.buckets(.peersLossRatio, [("direction", "rx")], Self.lossBounds, tally.rxLoss)
    out.buckets(.peersLossRatio, [("direction", "tx")], Self.lossBounds, tally.txLoss)
    out.family(.peersJitterSeconds)
    out.buckets(
      .peersJitterSeconds, [("direction", "rx")], Self.jitterBoundsSeconds, tally.rxJitterSeconds)
    out.buckets(
      .peersJitterSeconds, [("direction", "tx")], Self.jitterBoundsSeconds, tally.txJitterSeconds)
    out.family(.peersRTTSeconds)
    out.buckets(.peersRTTSeconds, [], Self.roundTripBoundsSeconds, tally.roundTripSeconds)
    collectCounters(into: &out)
  }

  /// The fleet's figures in one pass over the peers, reading each field in place: a pass per
  /// figure copied every snapshot (its strings retained) a dozen times per tick, 4 % of a
  /// tick's work at 130,000 peers (perf, issue 37).
  struct Tally {
    var rxLevels = [Int](repeating: 0, count: QualityLevel.allCases.count)
    var txLevels = [Int](repeating: 0, count: QualityLevel.allCases.count)
    var states: [ConnectionState: Int] = [:]
    var rxMOS: [Double] = []
    var txMOS: [Double] = []
    var rxLoss: [Double] = []
    var txLoss: [Double] = []
    var rxJitterSeconds: [Double] = []
    var txJitterSeconds: [Double] = []
    var roundTripSeconds: [Double] = []

    init(_ peers: [PeerSnapshot]) {
      for index in peers.indices {
        rxLevels[Int(peers[index].rx.level.rawValue)] += 1
        txLevels[Int(peers[index].tx.level.rawValue)] += 1
        states[peers[index].state, default: 0] += 1
        if let mos = peers[index].rx.meanOpinionScore { rxMOS.append(mos) }
        if let mos = peers[index].tx.meanOpinionScore { txMOS.append(mos) }
        if let inputs = peers[index].rx.inputs {
          rxLoss.append(inputs.lossRatio)
          rxJitterSeconds.append(inputs.jitterMilliseconds / 1000)
        }
        if let inputs = peers[index].tx.inputs {
          txLoss.append(inputs.lossRatio)
          txJitterSeconds.append(inputs.jitterMilliseconds / 1000)
        }
        if let roundTrip = peers[index].roundTripMilliseconds {
          roundTripSeconds.append(roundTrip / 1000)
        }
      }
    }
  }

  /// The fleet's counters (`EngineCounters`): peer-seconds at each level shown, state
  /// transitions, alerts fired — every series from the start at 0, so that `increase()` sees the
  /// first one (https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics).
  private func collectCounters(into out: inout MetricsWriter) {
    out.family(.peersQualitySecondsTotal)
    for direction in PeerLevelCounters.Direction.allCases {
      for level in QualityLevel.allCases {
        out.sample(
          .peersQualitySecondsTotal, [("direction", direction.label), ("level", level.name)],
          counters.seconds(direction, level))
      }
    }
    out.family(.peersStateTransitionsTotal)
    for kind in EngineCounters.transitionKinds {
      out.sample(
        .peersStateTransitionsTotal, [("state", kind.rawValue)],
        Double(counters.transitions[kind.rawValue] ?? 0))
    }
    out.family(.alertsFiredTotal)
    for rule in alertRules.sorted(by: { $0.name < $1.name }) {
      out.sample(
        .alertsFiredTotal, [("alertname", rule.name), ("severity", rule.severity)],
        Double(counters.alertsFired[rule.name] ?? 0))
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let peers = gauge(
    "netquality_peers", labels: ["direction", "level"],
    "Peers tracked at each quality level, per direction (any number of peers).")
  public static let peersQualitySecondsTotal = counter(
    "netquality_peers_quality_seconds_total", labels: ["direction", "level"],
    "Peer-seconds spent at each level shown, summed over every peer, per direction.")
  public static let peersStateTransitionsTotal = counter(
    "netquality_peers_state_transitions_total", labels: ["state"],
    "Connection state transitions of every peer, by the state entered (recovered: back to "
      + "connected).")
  public static let alertsFiredTotal = counter(
    "netquality_alerts_fired_total", labels: ["alertname", "severity"],
    "Agent alerts fired, by rule (every rule in effect, from 0).")
  public static let peersInState = gauge(
    "netquality_peers_in_state", labels: ["state"], "Peers tracked in each connection state.")
  public static let peerSeriesOmitted = gauge(
    "netquality_peer_series_omitted",
    "Peers left out of the per-peer series by metrics.max_peer_series (counted in the fleet "
      + "series).")
  public static let peersMOS = histogram(
    "netquality_peers_mos", labels: ["direction"],
    "MOS of the peers scored in the last tick, per direction (one observation per peer).")
  public static let peersLossRatio = histogram(
    "netquality_peers_loss_ratio", labels: ["direction"],
    "Packet loss over the scoring span of the peers scored, per direction.")
  public static let peersJitterSeconds = histogram(
    "netquality_peers_jitter_seconds", labels: ["direction"],
    "RFC 3550 jitter of the peers scored, per direction.")
  public static let peersRTTSeconds = histogram(
    "netquality_peers_rtt_seconds", "Round trip of the peers that have one.")
}
