import Foundation
import Yams

/// A key given twice in one block mapping stops Yams' composer, and with it every other check.
/// Here the later occurrences are found (by indentation, as `YAMLKeyPath` reads a file) and
/// blanked with their nested lines, every line kept so the rest keeps its line numbers: the
/// file is composed again and its other issues reported in the same pass.
enum DuplicateKeys {
  struct Removal {
    var text: String
    var issues: [ConfigurationError.Issue]
  }

  /// The later occurrences of `names` in the block mapping whose first duplicated key is at
  /// `mark`, blanked; nil when none is found (a flow mapping: `{a: 1, a: 2}`), and the caller
  /// reports Yams' error as it is.
  static func removeLater(_ names: [String], firstAt mark: Mark, in text: String) -> Removal? {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let firstIndex = mark.line - 1
    let column = mark.column - 1
    guard firstIndex >= 0, firstIndex < lines.count else { return nil }
    var seen: [String: Int] = [:]
    var issues: [ConfigurationError.Issue] = []
    var index = firstIndex
    while index < lines.count {
      let line = lines[index]
      let indent = line.prefix { $0 == " " }.count
      let blank = line.trimmingCharacters(in: .whitespaces).isEmpty
      let comment = line.trimmingCharacters(in: .whitespaces).hasPrefix("#")
      if index > firstIndex && !blank && !comment && indent < column { break }
      guard let (keyColumn, key) = YAMLKeyPath.entry(line), keyColumn == column,
        names.contains(key)
      else {
        index += 1
        continue
      }
      guard let first = seen[key] else {
        seen[key] = index + 1
        index += 1
        continue
      }
      issues.append(
        .init(
          line: index + 1, key: YAMLKeyPath.at(line: index + 1, in: text),
          message: "'\(key)' appears more than once in the same mapping (first on line \(first))"))
      // The entry and what is nested under it.
      lines[index] = ""
      index += 1
      while index < lines.count {
        let nested = lines[index]
        let nestedIndent = nested.prefix { $0 == " " }.count
        let nestedBlank = nested.trimmingCharacters(in: .whitespaces).isEmpty
        guard nestedBlank || nestedIndent > column else { break }
        lines[index] = ""
        index += 1
      }
    }
    return issues.isEmpty ? nil : Removal(text: lines.joined(separator: "\n"), issues: issues)
  }
}
