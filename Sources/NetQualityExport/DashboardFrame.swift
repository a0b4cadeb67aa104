import NetQualityCore

/// One frame of the text dashboard the agent appends every tick, for `tail -f`: a header with
/// the host levels, how many peers are at each level (per direction) and in each state, a row
/// per peer (levels, MOS, loss, jitter, RTT, what measured it, state and since when), and the
/// events of the tick.
///
/// A frame stays the same size however large the fleet: at most `maxPeers` rows and
/// `maxPeers` event lines, each followed by one line for what was left out. With every peer
/// shown the rows keep the engine's order (by name), so a small fleet's rows stay in place
/// from frame to frame; when some are left out, the rows are the worst peers, worst first
/// (see `worstFirst`).
public enum DashboardFrame {
  /// Rows (and event lines) per frame unless configured: a screenful of the worst peers,
  /// about 7 KB a frame instead of 1.27 MB at 10,000 peers.
  public static let defaultMaxPeers = 50

  public static func render(
    _ result: Engine.TickResult, firingAlerts: Int, maxPeers: Int = defaultMaxPeers
  ) -> String {
    let snapshot = result.snapshot
    var lines = [
      "=== \(snapshot.time.rfc3339)  host rx \(snapshot.hostRx.name)  tx \(snapshot.hostTx.name)  "
        + "peers \(snapshot.peers.count)  alerts firing \(firingAlerts)"
    ]
    if !snapshot.peers.isEmpty {
      lines += counts(snapshot.peers)
      lines.append(
        "PEER             RX         TX          MOS  RX LOSS  RX JITTER  TX LOSS      RTT  SOURCE     "
          + "STATE SINCE"
      )
    }
    let limit = max(0, maxPeers)
    let shown =
      snapshot.peers.count <= limit
      ? snapshot.peers : PeerSnapshot.worst(snapshot.peers, limit: limit)
    lines += shown.map(row)
    if shown.count < snapshot.peers.count {
      let left = snapshot.peers.count - shown.count
      let poorOrWorse =
        snapshot.peers.reduce(0) { $0 + ($1.worstLevel >= .poor ? 1 : 0) }
        - shown.filter { $0.worstLevel >= .poor }.count
      lines.append("… and \(left) more peers (\(poorOrWorse) at poor or worse)")
    }
    lines += result.events.prefix(limit).map(TimelineTable.event)
    if result.events.count > limit {
      lines.append(moreEvents(result.events.dropFirst(limit)))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The count lines: peers at each level 0...6 per direction, and in each state.
  static func counts(_ peers: [PeerSnapshot]) -> [String] {
    var rx = [Int](repeating: 0, count: QualityLevel.allCases.count)
    var tx = rx
    var states = [Int](repeating: 0, count: ConnectionState.allCases.count)
    for peer in peers {
      rx[peer.rx.level.rawValue] += 1
      tx[peer.tx.level.rawValue] += 1
      states[peer.state.number] += 1
    }
    func levels(_ counts: [Int]) -> String {
      QualityLevel.allCases.map { "\($0.name) \(counts[$0.rawValue])" }.joined(separator: "  ")
    }
    return [
      "levels rx  \(levels(rx))",
      "levels tx  \(levels(tx))",
      "states     "
        + ConnectionState.allCases.map { "\($0.rawValue) \(states[$0.number])" }.joined(
          separator: "  "),
    ]
  }

  static func row(_ peer: PeerSnapshot) -> String {
    let mos = peer.meanOpinionScore
    return [
      TimelineTable.pad(TerminalText.sanitized(peer.peer), 16),
      TimelineTable.pad(peer.rx.level.name, 10),
      TimelineTable.pad(peer.tx.level.name, 10),
      TimelineTable.right(mos.map { DecimalText.fixed($0, places: 2) } ?? "-", 4),
      TimelineTable.right(TimelineTable.percent(peer.rx.inputs?.lossRatio), 7),
      TimelineTable.right(
        peer.rx.inputs.map { DecimalText.fixed($0.jitterMilliseconds, places: 1) + " ms" }
          ?? "-", 9),
      TimelineTable.right(TimelineTable.percent(peer.tx.inputs?.lossRatio), 7),
      TimelineTable.right(
        peer.roundTripMilliseconds.map { DecimalText.fixed($0, places: 1) + " ms" } ?? "-", 8),
      TimelineTable.pad(source(peer), 10),
      "\(peer.state.rawValue) \(peer.stateSince.rfc3339)",
    ].joined(separator: " ")
  }

  /// "412 more events: 400 disconnected, 12 recovered": the events left out, by kind, the
  /// most frequent first.
  static func moreEvents(_ events: ArraySlice<EngineEvent>) -> String {
    var counts: [String: Int] = [:]
    for event in events { counts[event.kind.rawValue, default: 0] += 1 }
    let byKind = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    return "\(events.count) more events: "
      + byKind.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
  }

  /// What measured the peer: `rtp`, `probe` or `rtp+probe`.
  public static func source(_ peer: PeerSnapshot) -> String {
    let sources = peer.sources.map(\.rawValue)
    return sources.isEmpty ? "-" : sources.joined(separator: "+")
  }
}
