import Foundation
import XCTest

@testable import NetQualityCore

/// Issue 41: the docs that list what the code has check themselves. Each list drifted once: the
/// architecture page's table named files that had moved, and the alert metrics listed in the
/// shipped config and the quality model missed the video and call ones.
final class DocsCheckTests: XCTestCase {
  /// The repository: three levels above this file (Tests/NetQualityCoreTests/…).
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// The lines of `text` from the first that starts with `start` to the first after it that
  /// starts with `end` (not included).
  static func section(_ text: String, from start: String, to end: String) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return "" }
    let last = lines[(first + 1)...].firstIndex(where: { $0.hasPrefix(end) }) ?? lines.endIndex
    return lines[first..<last].joined(separator: "\n")
  }

  /// Every file the "Which file to open first" table of docs/architecture.md names exists
  /// (`Core/…` is `Sources/NetQualityCore/…`, and so on; a `<placeholder>` is a pattern).
  func testEveryFileTheArchitectureTableNamesExists() throws {
    let table = Self.section(
      try Self.text("docs/architecture.md"), from: "## Which file to open first", to: "## ")
    let modules = [
      "Core": "NetQualityCore", "Agent": "NetQualityAgent", "Config": "NetQualityConfig",
      "Export": "NetQualityExport", "Store": "NetQualityStore", "Probe": "NetQualityProbe",
      "Capture": "NetQualityCapture", "Synth": "NetQualitySynth",
    ]
    var named: [String] = []
    for quoted in table.split(separator: "`").enumerated() where quoted.offset % 2 == 1 {
      let path = String(quoted.element)
      guard path.hasSuffix(".swift") || path.hasSuffix("/"), !path.contains("<"),
        let slash = path.firstIndex(of: "/"), let module = modules[String(path[..<slash])]
      else { continue }
      named.append("Sources/\(module)\(path[slash...])")
    }
    XCTAssertGreaterThanOrEqual(named.count, 40, "the table names files: \(named)")
    let missing = named.filter {
      !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent($0).path)
    }
    XCTAssertEqual(missing, [], "named in docs/architecture.md, not in the tree")
  }

  /// Every metric an alert rule can watch is listed where the shipped config and the quality
  /// model list them.
  func testEveryAlertMetricIsListedInTheShippedConfigAndTheQualityModel() throws {
    let places = [
      (
        "config/netquality.yaml",
        Self.section(
          try Self.text("config/netquality.yaml"), from: "# Alerts: the built-in rules",
          to: "alerts:")
      ),
      (
        "docs/quality-model.md",
        Self.section(try Self.text("docs/quality-model.md"), from: "Built in:", to: "* **")
      ),
    ]
    for (file, list) in places {
      XCTAssertFalse(list.isEmpty, "\(file): the list of alert metrics")
      let words = Set(
        list.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
      for metric in AlertRule.Metric.allCases {
        XCTAssertTrue(words.contains(metric.rawValue), "\(file) does not list \(metric.rawValue)")
      }
    }
  }
}
