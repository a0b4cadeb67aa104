import NetQualityCore
import NetQualityExport

/// How many peers are at each level, per direction and for the worse of the two: what a
/// client summarises without fetching every peer.
struct LevelCounts: Sendable, Equatable {
  /// Indexed by `QualityLevel.rawValue`.
  var rx = [Int](repeating: 0, count: QualityLevel.allCases.count)
  var tx = [Int](repeating: 0, count: QualityLevel.allCases.count)
  var worst = [Int](repeating: 0, count: QualityLevel.allCases.count)

  mutating func add(_ peer: PeerSnapshot) {
    add(rx: peer.rx.level, tx: peer.tx.level)
  }

  /// A peer whose levels are `rx` and `tx` (its worst, `PeerSnapshot.worstLevel`, the higher).
  mutating func add(rx rxLevel: QualityLevel, tx txLevel: QualityLevel) {
    rx[rxLevel.rawValue] += 1
    tx[txLevel.rawValue] += 1
    worst[max(rxLevel, txLevel).rawValue] += 1
  }

  /// `{"rx":{"unknown":0,"excellent":12,...},"tx":{...},"worst":{...}}`, every level named.
  var json: JSONValue {
    func counts(_ counts: [Int]) -> JSONValue {
      .object(QualityLevel.allCases.map { ($0.name, .integer(Int64(counts[$0.rawValue]))) })
    }
    return .object([("rx", counts(rx)), ("tx", counts(tx)), ("worst", counts(worst))])
  }
}
