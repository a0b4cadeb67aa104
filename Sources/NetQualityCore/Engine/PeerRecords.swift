/// The scorer's peers by name. The records sit in one dense array and a table maps each name to
/// its place: a `[String: PeerRecord]` keeps a record-sized bucket for every slot of its hash
/// table, used or not (at 100,000 peers, 262,144 buckets of 184 bytes: 48 MB for 17 MB of
/// records), where a table of places costs 20 bytes a slot. The records sit in chunks
/// (`ChunkedArray`): no doubling, no copy of every record when the fleet grows.
struct PeerRecords {
  private var places: [String: Int32] = [:]
  private var records = ChunkedArray<PeerRecord>()
  /// Each place's name ("" when free): a place remembered from the tick before is checked
  /// against it instead of the name being hashed and looked up (`take(_:hint:into:)`).
  private var recordNames = ChunkedArray<String>()
  /// Places given back by forgotten peers, reused by new ones.
  private var free: [Int32] = []

  var count: Int { places.count }
  /// Places in the records array, in use or free.
  var placeCount: Int { records.count }
  var isEmpty: Bool { places.isEmpty }

  subscript(name: String) -> PeerRecord? {
    get { places[name].map { records[Int($0)] } }
    set {
      guard let newValue else {
        if let place = places.removeValue(forKey: name) {
          // The forgotten record's pooled windows go now, not when the place is reused.
          records[Int(place)] = .vacant
          recordNames[Int(place)] = ""
          free.append(place)
        }
        return
      }
      if let place = places[name] {
        records[Int(place)] = newValue
      } else if let place = free.popLast() {
        records[Int(place)] = newValue
        recordNames[Int(place)] = name
        places[name] = place
      } else {
        records.append(newValue)
        recordNames.append(name)
        places[name] = Int32(records.count - 1)
      }
    }
  }

  /// Takes `name`'s record out into `record` (swapped: the record's old value is left in its
  /// place until it is put back), and returns its place, to put it back without looking the
  /// name up again (`putBack`): two lookups of a String a peer and tick were 6 % of a tick under
  /// churn (issue 37). Changed while it is out, its pooled windows are the only reference to
  /// their storage and change in place, where a copy read out and set back would copy them, an
  /// allocation per peer and tick. nil, and `record` unchanged, when there is none.
  ///
  /// `hint`: where the peer's record was at the tick before (from its streams), or -1. Taken
  /// from there when that place still holds the name: hashing every held peer's name and
  /// probing the table for it was 4 % of a tick under churn (perf, issue 37).
  mutating func take(_ name: String, hint: Int32 = -1, into record: inout PeerRecord) -> Int32? {
    let place: Int32
    if hint >= 0, Int(hint) < recordNames.count, recordNames[Int(hint)] == name {
      place = hint
    } else if let found = places[name] {
      place = found
    } else {
      return nil
    }
    swap(&record, &records[Int(place)])
    return place
  }

  /// Puts back a record taken out of `place` (nil: a new peer, placed under `name`), and
  /// returns its place.
  @discardableResult
  mutating func putBack(_ record: PeerRecord, at place: Int32?, name: String) -> Int32 {
    guard let place else {
      self[name] = record
      return places[name] ?? -1
    }
    records[Int(place)] = record
    return place
  }

  /// The names of the peers whose record matches, in no particular order.
  func names(where matches: (PeerRecord) -> Bool) -> [String] {
    places.compactMap { matches(records[Int($1)]) ? $0 : nil }
  }

  /// The names of every peer, in no particular order.
  var names: Dictionary<String, Int32>.Keys { places.keys }

  /// After a wave of peers was forgotten (fewer than a quarter of the places in use, and more
  /// than 1,024 places), the table and the records are rebuilt at the size of what is left, so
  /// memory comes back.
  mutating func shrinkAfterChurn() {
    let capacity = max(records.count, places.capacity)
    guard capacity > 4 * max(places.count, 1024) else { return }
    var compacted = PeerRecords()
    compacted.places.reserveCapacity(places.count)
    for (name, place) in places { compacted[name] = records[Int(place)] }
    self = compacted
  }
}

extension PeerRecords: Sendable {}
