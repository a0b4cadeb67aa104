import Hummingbird
import NetQualityCore

/// What a request to `/api/v1/peers` or `/api/v1/streams` asks for, read from its query
/// parameters. A parameter the list does not take, or a value it cannot use, is refused with
/// a sentence saying what it takes (the route answers 400 with it).
struct ListQuery: Equatable {
  static let defaultLimit = 100
  static let maxLimit = 1000

  /// The two lists and the parameters each takes.
  enum List {
    case peers
    case streams

    var parameters: [String] {
      switch self {
      case .peers:
        ["limit", "offset", "cursor", "sort", "min_level", "state", "peer", "peer_contains"]
      case .streams: ["limit", "offset", "cursor", "state", "peer", "peer_contains"]
      }
    }

    var path: String { self == .peers ? "/api/v1/peers" : "/api/v1/streams" }
  }

  typealias Failure = QueryParameters.Failure

  /// Rows on a page, 0 for the counts alone.
  var limit = defaultLimit
  /// Matching rows passed over (after the cursor's place, when there is one).
  var offset = 0
  var cursor: PageCursor?
  var sort = PeerSort.worst
  var filter = RowFilter()

  init() {}

  init(_ query: Parameters, for list: List) throws(Failure) {
    try QueryParameters.refuseUnknown(query, path: list.path, takes: list.parameters)
    if let text = try QueryParameters.single("limit", query) {
      guard let value = Int(text), (0...Self.maxLimit).contains(value) else {
        throw Failure(description: "limit \(text): a whole number from 0 to \(Self.maxLimit)")
      }
      limit = value
    }
    if let text = try QueryParameters.single("offset", query) {
      guard let value = Int(text), value >= 0 else {
        throw Failure(description: "offset \(text): a whole number from 0")
      }
      offset = value
    }
    let sortText = try QueryParameters.single("sort", query)
    if let sortText {
      guard let value = PeerSort(rawValue: sortText) else {
        throw Failure(
          description:
            "sort \(sortText): one of "
            + PeerSort.allCases.map(\.rawValue).joined(separator: ", "))
      }
      sort = value
    }
    if let text = try QueryParameters.single("cursor", query) {
      cursor = PageCursor(text: text)
      switch (cursor, list) {
      case (.peers(let cursorSort, _), .peers):
        if sortText != nil && cursorSort != sort {
          throw Failure(
            description:
              "cursor: made for sort=\(cursorSort.rawValue), asked with sort=\(sort.rawValue); "
              + "give the sort the cursor was made with")
        }
        sort = cursorSort
      case (.streams, .streams):
        break
      default:
        throw Failure(
          description:
            "cursor \(text): not a cursor of \(list.path); pass the next_cursor of its last "
            + "answer, or leave it out to start at the first page")
      }
    }
    if let text = try QueryParameters.single("min_level", query) {
      guard let level = Self.level(text) else {
        throw Failure(
          description:
            "min_level \(text): a level from 0 to 6 or its name ("
            + QualityLevel.allCases.map(\.name).joined(separator: ", ") + ")")
      }
      filter.minimumLevel = level
    }
    for text in query.getAll("state") {
      for name in text.split(separator: ",", omittingEmptySubsequences: true) {
        guard let state = ConnectionState(rawValue: String(name)) else {
          throw Failure(
            description:
              "state \(name): one of "
              + ConnectionState.allCases.map(\.rawValue).joined(separator: ", "))
        }
        filter.states.insert(state)
      }
    }
    filter.prefix = try QueryParameters.single("peer", query) ?? ""
    filter.contains = try QueryParameters.single("peer_contains", query) ?? ""
  }

  /// A level by its number or its name (`poor`, `very_bad`; any case).
  static func level(_ text: String) -> QualityLevel? {
    if let number = Int(text) { return QualityLevel(rawValue: number) }
    return QualityLevel(name: text.lowercased())
  }
}

/// Which rows a list request keeps: every condition given must hold.
struct RowFilter: Equatable, Sendable {
  /// Peers whose worse direction is at this level or worse (`QualityLevel` numbers).
  var minimumLevel: QualityLevel?
  /// Connection states kept (empty: any).
  var states: Set<ConnectionState> = []
  /// The start of the peer's name (empty: any).
  var prefix = ""
  /// A part of the peer's name (empty: any).
  var contains = ""

  var isEmpty: Bool { self == RowFilter() }

  func matches(_ peer: PeerSnapshot) -> Bool {
    if let minimumLevel, peer.worstLevel < minimumLevel { return false }
    return matches(name: peer.peer, state: peer.state)
  }

  func matches(name: String, state: ConnectionState) -> Bool {
    (states.isEmpty || states.contains(state)) && (prefix.isEmpty || name.hasPrefix(prefix))
      && (contains.isEmpty || Self.bytes(of: name, contain: contains))
  }

  /// Whether `part`'s UTF-8 bytes occur in `name`'s: names are addresses and configured
  /// names, matched as typed. `String.contains` (Unicode-aware, generic) took 5.2 ms over
  /// 10,000 addresses where this takes 0.24 ms (release build).
  static func bytes(of name: String, contain part: String) -> Bool {
    var name = name
    var part = part
    return name.withUTF8 { name in
      part.withUTF8 { part in
        guard let first = part.first, part.count <= name.count else { return part.isEmpty }
        for start in 0...(name.count - part.count) where name[start] == first {
          var index = 1
          while index < part.count && name[start + index] == part[index] { index += 1 }
          if index == part.count { return true }
        }
        return false
      }
    }
  }
}
