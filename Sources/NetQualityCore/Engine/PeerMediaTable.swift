/// A tick's media per peer, by name: the records in an array changed in place, found through an
/// index. A dictionary of records this large (two directions of counts and feedback) copied
/// each one out and back in for every stream: half of a tick's scoring at 20,000 peers
/// (perf, issue 37).
///
/// The scorer keeps one table from tick to tick (`Scorer.peerMedia`), and a peer keeps its
/// place while it has media: made anew each tick, its records (800 bytes a peer) were fresh
/// pages to fault in, about 100 MB a tick at 130,000 peers, and its index one hash and insert
/// of a name per media stream, 8 % of a tick under churn (perf, issue 37). Each stream
/// remembers its peer's place, so a tick hashes only the names of new peers. A record is this
/// tick's once `position(of:stream:)` started it at this tick (`tickOfRecord`); a peer without
/// media for a whole tick gives its place back at the next one (`beginTick`).
struct PeerMediaTable {
  private var index: [String: Int32] = [:]
  var records: [PeerMedia] = []
  /// Each record's peer name (empty: a free place).
  private var names: [String] = []
  /// The tick each record was started in (`beginTick`'s count), or -1: a free place.
  private var tickOfRecord: [Int] = []
  /// Places given back, reused by new peers.
  private var free: [Int32] = []
  /// The place of each stream's peer, by the stream's index in the analyzer, or -1: checked
  /// against the name before it is used (the analyzer reuses and compacts its indices).
  private var positionOfStream: [Int32] = []
  private var tick = 0

  init() {}

  /// Starts the next tick: the records of peers without media in the tick before give their
  /// places back, and the table is rebuilt at its size once fewer than a quarter of its places
  /// are in use (a wave of peers has gone: the memory comes back). `streamSlots`: the
  /// analyzer's stream slots (`StreamHarvest.streamSlots`), the bound of its indices.
  mutating func beginTick(streamSlots: Int) {
    tick += 1
    for position in tickOfRecord.indices
    where tickOfRecord[position] >= 0 && tickOfRecord[position] < tick - 1 {
      index[names[position]] = nil
      names[position] = ""
      records[position] = PeerMedia()
      tickOfRecord[position] = -1
      free.append(Int32(position))
    }
    if records.count > 4 * index.count + 1024 {
      var compacted = PeerMediaTable()
      compacted.tick = tick
      compacted.index.reserveCapacity(index.count)
      for position in names.indices where tickOfRecord[position] >= 0 {
        let place = compacted.position(of: names[position])
        compacted.records[place] = records[position]
        compacted.tickOfRecord[place] = tickOfRecord[position]
      }
      self = compacted
    }
    if positionOfStream.count > streamSlots {
      positionOfStream.removeLast(positionOfStream.count - streamSlots)
    }
    if positionOfStream.capacity > 4 * positionOfStream.count + 1024 {
      var shrunk: [Int32] = []
      shrunk.reserveCapacity(positionOfStream.count)
      shrunk.append(contentsOf: positionOfStream)
      positionOfStream = shrunk
    }
  }

  /// The peer's record, if it had media in the tick.
  subscript(name: String) -> PeerMedia? {
    place(of: name, streams: EmptyCollection()).map { records[$0] }
  }

  /// The record of the peer `name` whose streams (by analyzer index) are `streams` (see
  /// `place(of:streams:)`).
  func media(of name: String, streams: some Sequence<Int32>) -> PeerMedia? {
    place(of: name, streams: streams).map { records[$0] }
  }

  /// The place in `records` of the peer `name` whose streams (by analyzer index) are
  /// `streams`, if it had media in the tick: through the first of them with media, or else by
  /// name (a peer with RTCP feedback and no media stream). A place, not a copy of the record
  /// (858 bytes), so that the scorer compares it in place (`PeerExtras.holds`).
  func place(of name: String, streams: some Sequence<Int32>) -> Int? {
    for stream in streams where Int(stream) < positionOfStream.count {
      let position = Int(positionOfStream[Int(stream)])
      // The same name as the stream's peer in the media pass (a string compare, usually of
      // the same storage), or the lookup by name decides.
      if position >= 0, tickOfRecord[position] == tick, names[position] == name {
        return position
      }
    }
    guard let position = index[name].map(Int.init), tickOfRecord[position] == tick else {
      return nil
    }
    return position
  }

  /// The position of the peer's record in `records`, started empty the first time in a tick;
  /// `stream`, the analyzer's index of the media stream it is for, or nil (RTCP feedback).
  mutating func position(of name: String, stream: Int32? = nil) -> Int {
    var position = -1
    if let stream, Int(stream) < positionOfStream.count {
      let remembered = Int(positionOfStream[Int(stream)])
      if remembered >= 0, names[remembered] == name { position = remembered }
    }
    if position < 0 {
      if let found = index[name] {
        position = Int(found)
      } else if let place = free.popLast() {
        position = Int(place)
        names[position] = name
        index[name] = place
      } else {
        position = records.count
        index[name] = Int32(position)
        records.append(PeerMedia())
        names.append(name)
        tickOfRecord.append(-1)
      }
    }
    if tickOfRecord[position] != tick {
      records[position] = PeerMedia()
      tickOfRecord[position] = tick
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
