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
  /// default), with each peer's keys computed once. Only the chosen peers are copied (a
  /// filtered copy of 100,000 snapshots first took 51 MiB for the length of a tick).
  ///
  /// Selected, not sorted: the `limit` worst so far are kept in order, and a peer is compared
  /// with the last of them and placed only when it comes before it. A sort of every peer (each
  /// compared about 17 times, by name among the thousands of departed peers all down and
  /// without a MOS) was 4 % of the agent's tick at 100,000 peers under churn (perf, issue 37).
  public static func worst(
    _ peers: [PeerSnapshot], limit: Int, included: (PeerSnapshot) -> Bool = { _ in true }
  ) -> [PeerSnapshot] {
    guard limit > 0 else { return [] }
    typealias Key = (level: Int, mos: Double, index: Int)
    func precedes(_ lhs: Key, _ rhs: Key) -> Bool {
      if lhs.level != rhs.level { return lhs.level > rhs.level }
      if lhs.mos != rhs.mos { return lhs.mos < rhs.mos }
      return peers[lhs.index].peer < peers[rhs.index].peer
    }
    var kept: [Key] = []
    kept.reserveCapacity(min(limit, peers.count) + 1)
    for index in peers.indices where included(peers[index]) {
      let key = (
        level: peers[index].worstLevel.rawValue, mos: peers[index].meanOpinionScore ?? .infinity,
        index: index
      )
      if kept.count == limit {
        guard let last = kept.last, precedes(key, last) else { continue }
        kept.removeLast()
      }
      // The first kept peer it precedes (a binary search: `kept` is in order).
      var (low, high) = (0, kept.count)
      while low < high {
        let middle = (low + high) / 2
        if precedes(kept[middle], key) { low = middle + 1 } else { high = middle }
      }
      kept.insert(key, at: low)
    }
    return kept.map { peers[$0.index] }
  }
}
