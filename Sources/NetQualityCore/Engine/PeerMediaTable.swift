/// A tick's media per peer, by name: the records in an array changed in place, found through an
/// index. A dictionary of records this large (two directions of counts and feedback) copied
/// each one out and back in for every stream: half of a tick's scoring at 20,000 peers
/// (perf, issue 37).
///
/// The scorer keeps one table from tick to tick (`Scorer.peerMedia`) and empties it keeping its
/// storage: made anew each tick, its records (800 bytes a peer) were fresh pages to fault in,
/// about 100 MB a tick at 130,000 peers (issue 37).
struct PeerMediaTable {
  private var index: [String: Int32] = [:]
  var records: [PeerMedia] = []

  init() {}

  /// Empties the table for the next tick, keeping its storage unless it outgrew the last
  /// tick's peers fourfold (a wave of peers has gone: the memory comes back).
  mutating func removeAll() {
    if records.capacity > 4 * records.count + 1024 {
      index = [:]
      records = []
    } else {
      index.removeAll(keepingCapacity: true)
      records.removeAll(keepingCapacity: true)
    }
  }

  /// The peer's record, if it had media in the tick.
  subscript(name: String) -> PeerMedia? {
    index[name].map { records[Int($0)] }
  }

  /// The position of the peer's record in `records`, made empty the first time.
  mutating func position(of name: String) -> Int {
    if let found = index[name] { return Int(found) }
    index[name] = Int32(records.count)
    records.append(PeerMedia())
    return records.count - 1
  }
}
