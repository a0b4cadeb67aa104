import NetQualityCore
import Synchronization

/// One tick's peers as `/api/v1/peers` serves them: their level counts, and each order sorted
/// once for the tick. The HTTP sink makes the table when it publishes the tick, off the
/// engine's lock, with the worst-first order already sorted (the default, and what `top`
/// asks for); another order is sorted by the first request that asks for it and kept until
/// the next tick. A request then costs a binary search and its page, or one pass over the
/// peers when it filters; never a sort.
final class PeerTable: Sendable {
  /// The tick the peers are from (nil: no tick yet).
  let time: CaptureTime?
  let peers: [PeerSnapshot]
  /// Every peer's levels.
  let levels: LevelCounts
  /// Per order, indices into `peers`.
  private let orders = Mutex<[PeerSort: [Int]]>([:])

  init(time: CaptureTime?, peers: [PeerSnapshot], sorted: [PeerSort] = []) {
    self.time = time
    self.peers = peers
    var levels = LevelCounts()
    // By position and field: a loop over the snapshots, or one passed whole, copied each one
    // (256 bytes, two retains) for three of its bytes.
    for index in peers.indices {
      levels.add(rx: peers[index].rx.level, tx: peers[index].tx.level)
    }
    self.levels = levels
    for sort in sorted { _ = order(sort) }
  }

  convenience init(_ snapshot: Snapshot, sorted: [PeerSort] = []) {
    self.init(time: snapshot.time, peers: snapshot.peers, sorted: sorted)
  }

  /// The peers' indices in `sort`'s order. Two requests racing for an order not sorted yet
  /// may both sort it; they get the same order.
  func order(_ sort: PeerSort) -> [Int] {
    if let order = orders.withLock({ $0[sort] }) { return order }
    let keys = peers.map(sort.key)
    let order = keys.indices.sorted { keys[$0] < keys[$1] }
    orders.withLock { $0[sort] = order }
    return order
  }

  /// What one request gets: its page, the level counts of the peers that match its filters,
  /// and a cursor for the page after it.
  struct Answer {
    var peers: [PeerSnapshot]
    var page: Page
    var levels: LevelCounts
    var nextCursor: PageCursor?
  }

  func answer(_ query: ListQuery) -> Answer {
    let order = order(query.sort)
    var start = 0
    if case .peers(_, let key) = query.cursor {
      start = position(after: key, in: order, sort: query.sort)
    }
    var levels = LevelCounts()
    let page: Page
    if query.filter.isEmpty {
      page = Page(order: order, start: start, skip: query.offset, limit: query.limit, matches: nil)
      levels = self.levels
    } else {
      page = Page(order: order, start: start, skip: query.offset, limit: query.limit) { index in
        guard query.filter.matches(self.peers[index]) else { return false }
        levels.add(self.peers[index])
        return true
      }
    }
    let rows = page.rows.map { peers[$0] }
    let last = page.hasMore ? rows.last : nil
    return Answer(
      peers: rows, page: page, levels: levels,
      nextCursor: last.map { .peers(query.sort, after: query.sort.key($0)) })
  }

  /// The first position of `order` whose peer comes after `key`: a binary search, as the
  /// order is sorted by the keys.
  func position(after key: PeerSortKey, in order: [Int], sort: PeerSort) -> Int {
    var low = 0
    var high = order.count
    while low < high {
      let middle = (low + high) / 2
      if sort.key(peers[order[middle]]) <= key {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }
}
