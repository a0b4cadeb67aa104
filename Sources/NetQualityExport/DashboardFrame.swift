import NetQualityCore

/// One frame of the text dashboard the agent appends every tick, for `tail -f`: a header with
/// the host levels, a row per peer (levels, MOS, loss, jitter, RTT, what measured it, state and
/// since when), and the events of the tick.
public enum DashboardFrame {
  public static func render(_ result: Engine.TickResult, firingAlerts: Int) -> String {
    let snapshot = result.snapshot
    var lines = [
      "=== \(snapshot.time.rfc3339)  host rx \(snapshot.hostRx.name)  tx \(snapshot.hostTx.name)  "
        + "peers \(snapshot.peers.count)  alerts firing \(firingAlerts)"
    ]
    if !snapshot.peers.isEmpty {
      lines.append(
        "PEER             RX         TX          MOS  RX LOSS  RX JITTER  TX LOSS      RTT  SOURCE     "
          + "STATE SINCE"
      )
    }
    for peer in snapshot.peers {
      let mos = peer.meanOpinionScore
      lines.append(
        [
          TimelineTable.pad(peer.peer, 16), TimelineTable.pad(peer.rx.level.name, 10),
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
        ].joined(separator: " "))
    }
    lines += result.events.map(TimelineTable.event)
    return lines.joined(separator: "\n") + "\n"
  }

  /// What measured the peer: `rtp`, `probe` or `rtp+probe`.
  public static func source(_ peer: PeerSnapshot) -> String {
    let sources = peer.sources.map(\.rawValue)
    return sources.isEmpty ? "-" : sources.joined(separator: "+")
  }
}
