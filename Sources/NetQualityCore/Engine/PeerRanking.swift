/// The order in which peers are shown when not all of them can be: worst first. Metrics with a
/// series budget, the dashboard's rows and the API's default page all rank peers this way.
extension PeerSnapshot {
  /// The worse of the two directions (unknown counts as no information; see
  /// `QualityLevel.worse`).
  public var worseLevel: QualityLevel { rx.level.worse(tx.level) }

  /// The lower MOS of the two directions, when either is scored.
  public var lowerMeanOpinionScore: Double? {
    switch (rx.meanOpinionScore, tx.meanOpinionScore) {
    case (let rx?, let tx?): min(rx, tx)
    case (let rx?, nil): rx
    case (nil, let tx?): tx
    case (nil, nil): nil
    }
  }

  /// Worse level first (down before very bad … before excellent, unknown last), then the lower
  /// MOS (unscored after scored), then the name: a total order, so pages and cut-offs are
  /// stable from one request to the next.
  public static func worstFirst(_ lhs: PeerSnapshot, _ rhs: PeerSnapshot) -> Bool {
    let (left, right) = (lhs.worseLevel, rhs.worseLevel)
    if left != right {
      if left == .unknown || right == .unknown { return right == .unknown }
      return left > right
    }
    switch (lhs.lowerMeanOpinionScore, rhs.lowerMeanOpinionScore) {
    case (let a?, let b?) where a != b: return a < b
    case (.some, nil): return true
    case (nil, .some): return false
    default: return lhs.peer < rhs.peer
    }
  }

  /// The `limit` worst peers, worst first (`worstFirst`), with each peer's keys computed once:
  /// sorting 100,000 peers compares each about 17 times.
  public static func worst(_ peers: [PeerSnapshot], limit: Int) -> [PeerSnapshot] {
    let keyed = peers.indices.map { index in
      let peer = peers[index]
      let level = peer.worseLevel
      // Unknown ranks below excellent; a peer without a MOS after those with one.
      return (
        rank: level == .unknown ? 0 : 1 + level.rawValue,
        mos: peer.lowerMeanOpinionScore ?? .infinity, index: index
      )
    }
    let sorted = keyed.sorted {
      if $0.rank != $1.rank { return $0.rank > $1.rank }
      if $0.mos != $1.mos { return $0.mos < $1.mos }
      return peers[$0.index].peer < peers[$1.index].peer
    }
    return sorted.prefix(limit).map { peers[$0.index] }
  }
}
