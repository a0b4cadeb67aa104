import Foundation

/// Where a page of the JSON API ended, handed to the client as `next_cursor` and back as
/// `cursor=` to get the page after it. Opaque to clients: base64url of a line only this file
/// reads.
enum PageCursor: Equatable, Sendable {
  /// After this key in this order of the peers. A key is a place in the order, not a row
  /// number: within a tick the next page follows exactly, and after a tick it still resumes
  /// after the same peer (peers that moved may be shown twice or not at all).
  case peers(PeerSort, after: PeerSortKey)
  /// From this position of the tick's stream list (the engine's order, stable while no
  /// stream is forgotten or added).
  case streams(from: Int)

  /// The cursor as a client carries it: base64url (RFC 4648 section 5) without padding, safe
  /// in a query string as it is.
  var text: String {
    let line: String
    switch self {
    case .peers(let sort, let key):
      line = [
        "p1", sort.rawValue, String(key.first.bitPattern, radix: 16),
        String(key.second.bitPattern, radix: 16), key.name,
      ].joined(separator: "\n")
    case .streams(let position):
      line = "s1\n\(position)"
    }
    return Data(line.utf8).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  /// A cursor this agent made, or nil for anything else.
  init?(text: String) {
    var base64 = text.replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64), let line = String(data: data, encoding: .utf8)
    else { return nil }
    // The name is last and may hold anything, the separator too.
    let fields = line.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
    switch fields.first {
    case "p1":
      guard fields.count == 5, let sort = PeerSort(rawValue: String(fields[1])),
        let first = UInt64(fields[2], radix: 16), let second = UInt64(fields[3], radix: 16)
      else { return nil }
      let key = PeerSortKey(
        first: Double(bitPattern: first), second: Double(bitPattern: second),
        name: String(fields[4]))
      guard !key.first.isNaN, !key.second.isNaN else { return nil }
      self = .peers(sort, after: key)
    case "s1":
      guard fields.count == 2, let position = Int(fields[1]), position >= 0 else { return nil }
      self = .streams(from: position)
    default:
      return nil
    }
  }
}
