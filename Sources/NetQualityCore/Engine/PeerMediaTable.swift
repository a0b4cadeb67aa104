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
  /// Each record's peer name.
  private var names: [String] = []
  /// The record of each stream's peer, by the stream's index in the analyzer, or -1: the
  /// scorer finds a peer's media through its streams, not by hashing its name again (a hash and
  /// a cache miss per peer, 9 % of a tick under churn, perf, issue 37).
  private var positionOfStream: [Int32] = []

  init() {}

  /// Empties the table for the next tick, keeping its storage unless it outgrew the last
  /// tick's peers fourfold (a wave of peers has gone: the memory comes back).
  mutating func removeAll() {
    if records.capacity > 4 * records.count + 1024 {
      index = [:]
      records = []
      names = []
    } else {
      index.removeAll(keepingCapacity: true)
      records.removeAll(keepingCapacity: true)
      names.removeAll(keepingCapacity: true)
    }
    if positionOfStream.capacity > 4 * positionOfStream.count + 1024 {
      positionOfStream = []
    } else {
      positionOfStream.removeAll(keepingCapacity: true)
    }
  }

  /// The peer's record, if it had media in the tick.
  subscript(name: String) -> PeerMedia? {
    index[name].map { records[Int($0)] }
  }

  /// The record of the peer `name` whose streams (by analyzer index) are `streams`: through
  /// the first of them with media, or else by name (a peer with RTCP feedback and no media
  /// stream).
  func media(of name: String, streams: some Sequence<Int32>) -> PeerMedia? {
    for stream in streams where Int(stream) < positionOfStream.count {
      let position = Int(positionOfStream[Int(stream)])
      // The same name as the stream's peer in the media pass (a string compare, usually of
      // the same storage), or the lookup by name decides.
      if position >= 0, names[position] == name { return records[position] }
    }
    return self[name]
  }

  /// The position of the peer's record in `records`, made empty the first time; `stream`, the
  /// analyzer's index of the media stream it is for, or nil (RTCP feedback).
  mutating func position(of name: String, stream: Int32? = nil) -> Int {
    let position: Int
    if let found = index[name] {
      position = Int(found)
    } else {
      position = records.count
      index[name] = Int32(position)
      records.append(PeerMedia())
      names.append(name)
    }
    if let stream {
      let slot = Int(stream)
      if positionOfStream.count <= slot {
        positionOfStream.append(
          contentsOf: repeatElement(-1, count: slot + 1 - positionOfStream.count))
      }
      positionOfStream[slot] = Int32(position)
    }
    return position
  }
}
