import Foundation
import NetQualityConfig
import XCTest

/// The defaults the docs quote are the code's: every row of a configuration table in README.md
/// or docs/*.md (a table headed `| key | default |`) is loaded as the file would say it, and
/// must change nothing against `AgentConfiguration()`, the source of every default.
final class DocumentedDefaultsTests: XCTestCase {
  struct Row {
    var file: String
    var line: Int
    var key: String
    var value: String
  }

  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The rows of every `| key | default |` table in one Markdown text.
  static func rows(_ text: String, file: String) -> [Row] {
    var rows: [Row] = []
    var inTable = false
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard line.hasPrefix("|"), cells.count >= 4 else {
        inTable = false
        continue
      }
      if cells[1] == "key" && cells[2] == "default" {
        inTable = true
        continue
      }
      guard inTable, cells[1].hasPrefix("`"), cells[2].hasPrefix("`"), cells[2].hasSuffix("`")
      else { continue }
      rows.append(
        Row(
          file: file, line: index + 1, key: String(cells[1].dropFirst().dropLast()),
          value: String(cells[2].dropFirst().dropLast())))
    }
    return rows
  }

  /// `a.b: v` as YAML: a mapping per dotted part.
  static func yaml(_ row: Row) -> String {
    let parts = row.key.split(separator: ".")
    var text = ""
    for (depth, part) in parts.enumerated() {
      let indent = String(repeating: "  ", count: depth)
      text += depth == parts.count - 1 ? "\(indent)\(part): \(row.value)\n" : "\(indent)\(part):\n"
    }
    return text
  }

  static func documentedRows() throws -> [Row] {
    let docs = repository.appendingPathComponent("docs")
    let names = try FileManager.default.contentsOfDirectory(atPath: docs.path)
      .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    return try (["README.md"] + names).flatMap { name in
      rows(
        try String(contentsOf: repository.appendingPathComponent(name), encoding: .utf8),
        file: name)
    }
  }

  /// The issues of rows whose value is not the default: "README.md:70: tick_interval: 2 is not
  /// the default (tick_interval differs)".
  static func mismatches(_ rows: [Row], defaults: AgentConfiguration) -> [String] {
    rows.compactMap { row in
      let place = "\(row.file):\(row.line): \(row.key): \(row.value)"
      do {
        let loaded = try ConfigurationLoader.load(yaml: yaml(row), file: row.file)
        // The row's own keys only: the rest of `loaded` is the code's defaults anyway.
        let changed = ConfigurationKeys.changed(from: defaults, to: loaded).map(\.name).filter {
          $0 == row.key || $0.hasPrefix(row.key + ".")
        }
        return changed.isEmpty
          ? nil : "\(place) is not the default (\(changed.joined(separator: ", ")) differs)"
      } catch {
        return "\(place) does not load: \(error)"
      }
    }
  }

  func testEveryDocumentedDefaultIsTheCodesDefault() throws {
    let rows = try Self.documentedRows()
    let keys = Set(rows.map(\.key))
    // The README's table is there and read: a table the parser missed would pass silently.
    for key in ["tick_interval", "timers", "status_page.chart_seconds", "listen"] {
      XCTAssertTrue(keys.contains(key), "\(key) has no row in a `| key | default |` table")
    }
    XCTAssertEqual(Self.mismatches(rows, defaults: AgentConfiguration()), [])
  }

  /// The check sees a changed default: against a configuration whose chart span is 1,800 s,
  /// the README's 3600 is reported with its line.
  func testAChangedDefaultIsReported() throws {
    var changed = AgentConfiguration()
    changed.statusPage.chartSeconds = 1800
    let mismatches = Self.mismatches(try Self.documentedRows(), defaults: changed)
    XCTAssertEqual(mismatches.count, 1, "\(mismatches)")
    XCTAssertTrue(
      mismatches.first?.hasPrefix("README.md:") == true
        && mismatches.first?.contains("status_page.chart_seconds: 3600 is not the default") == true,
      "\(mismatches)")
  }
}
