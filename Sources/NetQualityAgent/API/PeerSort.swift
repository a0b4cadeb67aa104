import NetQualityCore

/// The orders `/api/v1/peers` pages through (`sort=`).
enum PeerSort: String, CaseIterable, Sendable {
  /// The worse of the two directions' levels first, then the lower MOS (peers without one
  /// after those with one), then the name.
  case worst
  case name
  /// The highest received loss ratio first (peers without a figure last), then the name.
  case loss
  /// The highest received jitter first (peers without a figure last), then the name.
  case jitter

  /// Where `peer` falls in this order: ascending keys are the order. The name ends every key
  /// and names are unique in a tick, so the order is total and a key is a position that a
  /// cursor can resume after.
  func key(_ peer: PeerSnapshot) -> PeerSortKey {
    switch self {
    case .worst:
      PeerSortKey(
        first: -Double(peer.worstLevel.rawValue),
        second: Self.figure(peer.meanOpinionScore) ?? .infinity, name: peer.peer)
    case .name:
      PeerSortKey(first: 0, second: 0, name: peer.peer)
    case .loss:
      // Ratios and milliseconds are never negative: -1 puts a missing figure after all.
      PeerSortKey(
        first: -(Self.figure(peer.rx.inputs?.lossRatio) ?? -1), second: 0, name: peer.peer)
    case .jitter:
      PeerSortKey(
        first: -(Self.figure(peer.rx.inputs?.jitterMilliseconds) ?? -1), second: 0,
        name: peer.peer)
    }
  }

  /// A figure the order can use: NaN compares with nothing and would break the sort.
  private static func figure(_ value: Double?) -> Double? {
    value.flatMap { $0.isNaN ? nil : $0 }
  }
}

/// A peer's place in a `PeerSort`, compared field by field.
struct PeerSortKey: Comparable, Sendable {
  var first: Double
  var second: Double
  var name: String

  static func < (lhs: PeerSortKey, rhs: PeerSortKey) -> Bool {
    (lhs.first, lhs.second, lhs.name) < (rhs.first, rhs.second, rhs.name)
  }
}
