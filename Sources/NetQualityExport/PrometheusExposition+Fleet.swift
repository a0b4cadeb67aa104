import NetQualityCore

/// Series that hold for any fleet size: how many peers are at each level and in each state,
/// and histograms of MOS, loss, jitter and round trip across peers. With these, per-peer series
/// are needed only for the peers that matter (`seriesPeers`), so the exposition stays within
/// its budget (docs/metrics.md) whether 10 or 100,000 peers are tracked.
extension PrometheusExposition {
  /// The peers with series of their own: every peer named by a configured group (`pinned`),
  /// then the worst of the rest (`PeerSnapshot.worstFirst`) up to `limit` in all; in name
  /// order, like the full list. `worstOrder`, when the caller has it (the agent's peer table
  /// sorts it once per tick for the API), is the peers' indices in that order, and saves a
  /// second sort of the whole fleet.
  public static func seriesPeers(
    _ peers: [PeerSnapshot], limit: Int, pinned: Set<String>, worstOrder: [Int]? = nil
  ) -> [PeerSnapshot] {
    guard peers.count > limit else { return peers }
    var chosen = peers.filter { pinned.contains($0.peer) }
    let room = limit - chosen.count
    if room > 0, let worstOrder {
      chosen += worstOrder.lazy.map { peers[$0] }.filter { !pinned.contains($0.peer) }.prefix(room)
    } else if room > 0 {
      chosen += PeerSnapshot.worst(peers, limit: room) { !pinned.contains($0.peer) }
    }
    return chosen.sorted { $0.peer < $1.peer }
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

  func fleet(_ peers: [PeerSnapshot], shown: Int, into out: inout Writer) {
    out.family(.peers)
    for (direction, level) in [("rx", \PeerSnapshot.rx.level), ("tx", \PeerSnapshot.tx.level)] {
      var counts = [Int](repeating: 0, count: QualityLevel.allCases.count)
      for peer in peers { counts[Int(peer[keyPath: level].rawValue)] += 1 }
      for quality in QualityLevel.allCases {
        out.sample(
          .peers, [("direction", direction), ("level", quality.name)],
          Double(counts[Int(quality.rawValue)]))
      }
    }
    out.family(.peersInState)
    for state in ConnectionState.allCases {
      out.sample(
        .peersInState, [("state", state.rawValue)],
        Double(peers.lazy.filter { $0.state == state }.count))
    }
    out.family(.peerSeriesOmitted)
    out.sample(.peerSeriesOmitted, [], Double(peers.count - shown))

    out.family(.peersMOS)
    for direction in ["rx", "tx"] {
      let values = peers.compactMap {
        (direction == "rx" ? $0.rx : $0.tx).meanOpinionScore
      }
      out.buckets(.peersMOS, [("direction", direction)], Self.mosBounds, values)
    }
    out.family(.peersLossRatio)
    for direction in ["rx", "tx"] {
      let values = peers.compactMap { (direction == "rx" ? $0.rx : $0.tx).inputs?.lossRatio }
      out.buckets(
        .peersLossRatio, [("direction", direction)], Self.lossBounds, values)
    }
    out.family(.peersJitterSeconds)
    for direction in ["rx", "tx"] {
      let values = peers.compactMap {
        (direction == "rx" ? $0.rx : $0.tx).inputs.map { $0.jitterMilliseconds / 1000 }
      }
      out.buckets(
        .peersJitterSeconds, [("direction", direction)], Self.jitterBoundsSeconds,
        values)
    }
    out.family(.peersRTTSeconds)
    out.buckets(
      .peersRTTSeconds, [], Self.roundTripBoundsSeconds,
      peers.compactMap { $0.roundTripMilliseconds.map { $0 / 1000 } })
  }
}
