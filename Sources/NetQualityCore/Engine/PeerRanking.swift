/// The order in which peers are shown when not all of them can be: worst first. Metrics with a
/// series budget and the dashboard's rows rank peers this way; the API's `sort=worst`
/// (`PeerSort`) is the same order as a cursor key.
extension PeerSnapshot {
  /// Worse level first (down before very bad … before excellent, unknown last; see
  /// `worstLevel`), then the lower MOS (unscored after scored), then the name: a total order,
  /// so cut-offs are stable from one tick to the next.
  public static func worstFirst(_ lhs: PeerSnapshot, _ rhs: PeerSnapshot) -> Bool {
    if lhs.worstLevel != rhs.worstLevel { return lhs.worstLevel > rhs.worstLevel }
    switch (lhs.meanOpinionScore, rhs.meanOpinionScore) {
    case (let a?, let b?) where a != b: return a < b
    case (.some, nil): return true
    case (nil, .some): return false
    default: return lhs.peer < rhs.peer
    }
  }

  /// The `limit` worst peers, worst first (`worstFirst`), of those `included` (all by
  /// default), with each peer's keys computed once: sorting 100,000 peers compares each about
  /// 17 times. Only the chosen peers are copied (a filtered copy of 100,000 snapshots first
  /// took 51 MiB for the length of a tick).
  public static func worst(
    _ peers: [PeerSnapshot], limit: Int, included: (PeerSnapshot) -> Bool = { _ in true }
  ) -> [PeerSnapshot] {
    var keyed: [(level: Int, mos: Double, index: Int)] = []
    for index in peers.indices where included(peers[index]) {
      keyed.append(
        (peers[index].worstLevel.rawValue, peers[index].meanOpinionScore ?? .infinity, index))
    }
    let sorted = keyed.sorted {
      if $0.level != $1.level { return $0.level > $1.level }
      if $0.mos != $1.mos { return $0.mos < $1.mos }
      return peers[$0.index].peer < peers[$1.index].peer
    }
    return sorted.prefix(limit).map { peers[$0.index] }
  }
}
