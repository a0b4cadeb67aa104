import NetQualityCore

/// The series of each peer with series of its own (the configured groups and the worst of the
/// rest, up to `metrics.max_peer_series`: `seriesPeers`): level, MOS, loss, jitter, round trip
/// and state per direction, packet counters, and the time it spent at each level.
public struct PeerCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .peerQualityLevel, .peerMOS, .peerLossRatio, .peerJitterSeconds, .peerRTTSeconds,
    .peerConnectionState, .peerReceivedPacketsTotal, .peerLostPacketsTotal,
    .peerSentPacketsTotal, .peerRetransmittedPacketsTotal, .peerFECPacketsTotal,
    .peerQualitySecondsTotal, .peerQualityLevelMax,
  ]

  /// The peers with series of their own, in name order.
  public var peers: [PeerSnapshot]
  /// Their time at each level and the worst of the last minute (`Scorer.levelCounters(of:)`), by
  /// name.
  public var levelCounters: [String: PeerLevelCounters]

  public init(peers: [PeerSnapshot], levelCounters: [String: PeerLevelCounters]) {
    self.peers = peers
    self.levelCounters = levelCounters
  }

  /// The peers with series of their own: every peer named by a configured group (`pinned`),
  /// then the worst of the rest (`PeerSnapshot.worstFirst`) up to `limit` in all; in name
  /// order, like the full list. `worstOrder`, when the caller has it (the agent's peer table
  /// sorts it once per tick for the API), is the peers' indices in that order, and saves a
  /// second sort of the whole fleet.
  ///
  /// `incumbents` are the peers that had series at the previous tick. Within one level they
  /// come before the others, so a peer loses its series only to a peer at a worse level: by MOS
  /// alone, 88 of 200 series changed hands at every tick among peers all at one level (3 %
  /// loss, e2e-fleet), and each change is a series ended and a new one begun in Prometheus.
  /// Levels are damped (`LevelDamper`), so the set holds while the fleet's trouble does.
  ///
  /// By index, each snapshot copied once if chosen: the groups filtered as snapshots copied
  /// every one of a level's peers (256 bytes and two retains each) two or three times, about
  /// 8 % of the agent's tick with 100,000 peers held under churn (perf, issue 37).
  public static func seriesPeers(
    _ peers: [PeerSnapshot], limit: Int, pinned: Set<String>, worstOrder: [Int]? = nil,
    incumbents: Set<String> = []
  ) -> [PeerSnapshot] {
    guard peers.count > limit else { return peers }
    // No configured group (the usual case): no name of the fleet hashed to ask.
    let isPinned: (Int) -> Bool =
      pinned.isEmpty ? { _ in false } : { pinned.contains(peers[$0].peer) }
    var chosen = pinned.isEmpty ? [] : peers.indices.filter(isPinned)
    let room = limit - chosen.count
    func named(_ indices: [Int]) -> [PeerSnapshot] {
      indices.sorted { peers[$0].peer < peers[$1].peer }.map { peers[$0] }
    }
    guard room > 0 else { return named(chosen) }
    if incumbents.isEmpty {
      guard let worstOrder else {
        let worst = PeerSnapshot.worst(peers, limit: room) { !pinned.contains($0.peer) }
        return (chosen.map { peers[$0] } + worst).sorted { $0.peer < $1.peer }
      }
      chosen += worstOrder.lazy.filter { !isPinned($0) }.prefix(room)
      return named(chosen)
    }
    let order =
      worstOrder ?? peers.indices.sorted { PeerSnapshot.worstFirst(peers[$0], peers[$1]) }
    // Level by level, worst first: a level that fits is taken whole; the one that overflows
    // the room gives it to its incumbents first, then to the rest in worst-first order.
    var remaining = room
    var position = order.startIndex
    while remaining > 0, position < order.endIndex {
      let level = peers[order[position]].worstLevel
      var end = position
      while end < order.endIndex, peers[order[end]].worstLevel == level { end += 1 }
      let group = order[position..<end].lazy.filter { !isPinned($0) }
      let groupCount = group.count
      if groupCount <= remaining {
        chosen += group
        remaining -= groupCount
      } else {
        let kept = Array(group.filter { incumbents.contains(peers[$0].peer) }.prefix(remaining))
        chosen += kept
        remaining -= kept.count
        chosen += group.filter { !incumbents.contains(peers[$0].peer) }.prefix(remaining)
        remaining = 0
      }
      position = end
    }
    return named(chosen)
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.peerQualityLevel)
    for peer in peers {
      out.sample(
        .peerQualityLevel, [("peer", peer.peer), ("direction", "rx")],
        Double(peer.rx.level.rawValue))
      out.sample(
        .peerQualityLevel, [("peer", peer.peer), ("direction", "tx")],
        Double(peer.tx.level.rawValue))
    }
    out.family(.peerMOS)
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let mos = snapshot.meanOpinionScore {
          out.sample(.peerMOS, [("peer", peer.peer), ("direction", direction)], mos)
        }
      }
    }
    out.family(.peerLossRatio)
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let loss = snapshot.inputs?.lossRatio {
          out.sample(
            .peerLossRatio, [("peer", peer.peer), ("direction", direction)], loss)
        }
      }
    }
    out.family(.peerJitterSeconds)
    for peer in peers {
      for (direction, snapshot) in [("rx", peer.rx), ("tx", peer.tx)] {
        if let jitter = snapshot.inputs?.jitterMilliseconds {
          out.sample(
            .peerJitterSeconds, [("peer", peer.peer), ("direction", direction)],
            jitter / 1000)
        }
      }
    }
    out.family(.peerRTTSeconds)
    for peer in peers {
      if let rtt = peer.roundTripMilliseconds, let source = peer.roundTripSource {
        out.sample(
          .peerRTTSeconds, [("peer", peer.peer), ("source", source.rawValue)],
          rtt / 1000)
      }
    }
    out.family(.peerConnectionState)
    for peer in peers {
      for state in ConnectionState.allCases {
        out.sample(
          .peerConnectionState, [("peer", peer.peer), ("state", state.rawValue)],
          peer.state == state ? 1 : 0)
      }
    }
    out.family(.peerReceivedPacketsTotal)
    for peer in peers {
      out.sample(
        .peerReceivedPacketsTotal, [("peer", peer.peer)], Double(peer.rxPacketsTotal)
      )
    }
    out.family(.peerLostPacketsTotal)
    for peer in peers {
      out.sample(
        .peerLostPacketsTotal, [("peer", peer.peer)], Double(peer.rxLostTotal))
    }
    out.family(.peerSentPacketsTotal)
    for peer in peers {
      out.sample(
        .peerSentPacketsTotal, [("peer", peer.peer)], Double(peer.txPacketsTotal))
    }
    out.family(.peerRetransmittedPacketsTotal)
    for peer in peers {
      for (direction, total) in [
        ("rx", peer.rxRetransmittedTotal), ("tx", peer.txRetransmittedTotal),
      ] {
        out.sample(
          .peerRetransmittedPacketsTotal,
          [("peer", peer.peer), ("direction", direction)], Double(total))
      }
    }
    out.family(.peerFECPacketsTotal)
    for peer in peers {
      out.sample(
        .peerFECPacketsTotal, [("peer", peer.peer)], Double(peer.rxFECTotal))
    }
    collectLevelCounters(into: &out)
  }

  /// The time at each level shown and the worst level of the last minute, of the peers with
  /// series of their own.
  private func collectLevelCounters(into out: inout MetricsWriter) {
    out.family(.peerQualitySecondsTotal)
    for peer in peers {
      guard let counters = levelCounters[peer.peer] else { continue }
      for direction in PeerLevelCounters.Direction.allCases {
        for level in QualityLevel.allCases {
          out.sample(
            .peerQualitySecondsTotal,
            [("peer", peer.peer), ("direction", direction.label), ("level", level.name)],
            counters.seconds(direction, level))
        }
      }
    }
    out.family(.peerQualityLevelMax)
    for peer in peers {
      guard let counters = levelCounters[peer.peer] else { continue }
      for direction in PeerLevelCounters.Direction.allCases {
        out.sample(
          .peerQualityLevelMax, [("peer", peer.peer), ("direction", direction.label)],
          Double(counters.worstLevel(direction).rawValue))
      }
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let peerQualityLevel = gauge(
    "netquality_peer_quality_level", labels: ["peer", "direction"],
    "Peer quality per direction: 0 unknown, 1 excellent, 2 good, 3 poor, 4 bad, 5 very bad, "
      + "6 down.")
  public static let peerMOS = gauge(
    "netquality_peer_mos", labels: ["peer", "direction"],
    "ITU-T G.107 MOS estimate per direction, when scored.")
  public static let peerLossRatio = gauge(
    "netquality_peer_loss_ratio", labels: ["peer", "direction"],
    "Packet loss over the scoring span (rx measured, tx reported).")
  public static let peerJitterSeconds = gauge(
    "netquality_peer_jitter_seconds", labels: ["peer", "direction"],
    "RFC 3550 interarrival jitter (rx measured, tx reported).")
  public static let peerRTTSeconds = gauge(
    "netquality_peer_rtt_seconds", labels: ["peer", "source"],
    "Round trip to the peer from the capture point: RTCP LSR/DLSR (source=rtcp), ICE "
      + "checks when RTCP is encrypted (source=stun), or STAMP probes (source=probe).")
  public static let peerConnectionState = gauge(
    "netquality_peer_connection_state", labels: ["peer", "state"],
    "1 for the peer's current connection state.")
  public static let peerQualitySecondsTotal = counter(
    "netquality_peer_quality_seconds_total", labels: ["peer", "direction", "level"],
    "Seconds the peer spent at each level shown, per direction: an incident of any length "
      + "shows in increase() at any scrape interval.")
  public static let peerQualityLevelMax = gauge(
    "netquality_peer_quality_level_max", labels: ["peer", "direction"],
    "The worst level shown for the peer in the current and the previous minute: a scrape at any "
      + "interval up to a minute sees every level shown, however briefly.")
  public static let peerReceivedPacketsTotal = counter(
    "netquality_peer_received_packets_total", labels: ["peer"],
    "RTP packets received from the peer.")
  public static let peerLostPacketsTotal = counter(
    "netquality_peer_lost_packets_total", labels: ["peer"],
    "RTP packets from the peer that never arrived.")
  public static let peerSentPacketsTotal = counter(
    "netquality_peer_sent_packets_total", labels: ["peer"], "RTP packets sent to the peer.")
  public static let peerRetransmittedPacketsTotal = counter(
    "netquality_peer_retransmitted_packets_total", labels: ["peer", "direction"],
    "RFC 4588 retransmissions (rx from the peer, tx to it), outside the media packet counts.")
  public static let peerFECPacketsTotal = counter(
    "netquality_peer_fec_packets_total", labels: ["peer"],
    "Forward error correction packets from the peer on streams of their own (ULPFEC, FlexFEC).")
}
