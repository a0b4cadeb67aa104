import Foundation

/// Finds which key a line of a YAML file belongs to, for errors Yams reports with a line but
/// no node (syntax errors, duplicated keys): the block mappings above it, by indentation.
enum YAMLKeyPath {
  /// The dotted path of the key on `line` (1-based), or of the entry the line belongs to;
  /// empty when the line is not inside any mapping entry.
  static func at(line target: Int, in text: String) -> String {
    var stack: [(indent: Int, key: String)] = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      guard index < target else { break }
      guard let (indent, key) = entry(String(raw)) else { continue }
      while let last = stack.last, last.indent >= indent { stack.removeLast() }
      stack.append((indent, key))
    }
    return stack.map(\.key).joined(separator: ".")
  }

  /// The line (1-based) of a byte offset into the UTF-8 text.
  static func line(ofUTF8Offset offset: Int, in text: String) -> Int {
    text.utf8.prefix(max(0, offset)).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
  }

  /// `key:` at the start of a line (after indentation and an optional `- `): its column and
  /// name.
  static func entry(_ line: String) -> (Int, String)? {
    var indent = 0
    var rest = Substring(line)
    while let first = rest.first, first == " " || first == "-" {
      indent += 1
      rest = rest.dropFirst()
    }
    guard !rest.hasPrefix("#"), let colon = rest.firstIndex(of: ":") else { return nil }
    let key = rest[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'"))
    guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
      return nil
    }
    return (indent, key)
  }
}
