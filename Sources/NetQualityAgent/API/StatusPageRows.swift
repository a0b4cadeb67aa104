import NetQualityCore

/// Which peers the status page shows: the `maxPeers` worst (the API's `sort=worst` order),
/// then the configured peer groups not already among them (as many again at most), so the
/// page stays a screen at any fleet size. Chosen once per tick by `StatusPageSink`.
struct StatusPageRows: Sendable {
  var peers: [PeerSnapshot] = []
  /// Parallel to `peers`: a configured group shown for being one.
  var isGroup: [Bool] = []
  /// Of the peers not shown, those at poor or worse (the worse of rx and tx).
  var othersPoorOrWorse = 0

  init() {}

  init(_ table: PeerTable, groups: Set<String>, maxPeers: Int) {
    let worst = table.order(.worst).prefix(maxPeers)
    var shown = Set<Int>()
    for index in worst {
      peers.append(table.peers[index])
      isGroup.append(groups.contains(table.peers[index].peer))
      shown.insert(index)
    }
    if !groups.isEmpty {
      var added = 0
      for index in table.peers.indices where added < maxPeers && !shown.contains(index) {
        guard groups.contains(table.peers[index].peer) else { continue }
        peers.append(table.peers[index])
        isGroup.append(true)
        added += 1
      }
    }
    let poorOrWorse = table.levels.worst.enumerated().reduce(0) {
      $0 + ($1.offset >= QualityLevel.poor.rawValue ? $1.element : 0)
    }
    othersPoorOrWorse = poorOrWorse - peers.filter { $0.worstLevel >= .poor }.count
  }
}
