import Foundation
import XCTest
import Yams

/// The operators' kit as files of the repository: docs/metrics.md, docs/runbook.md,
/// dashboards/*.json and config/rules/*.yml, found from this file's path.
enum OperatorsKit {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  static func files(in directory: String, suffix: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(directory).path)
      .filter { $0.hasSuffix(suffix) }.sorted().map { "\(directory)/\($0)" }
  }

  // MARK: Dashboards

  /// Each dashboard's JSON object by path.
  static func dashboards() throws -> [(path: String, json: [String: Any])] {
    try files(in: "dashboards", suffix: ".json").map { path in
      let data = try Data(contentsOf: root.appendingPathComponent(path))
      guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw KitError("\(path): not a JSON object")
      }
      return (path, json)
    }
  }

  /// Every panel of a dashboard, those inside collapsed rows too.
  static func panels(_ dashboard: [String: Any]) -> [[String: Any]] {
    let top = dashboard["panels"] as? [[String: Any]] ?? []
    return top.flatMap { [$0] + ($0["panels"] as? [[String: Any]] ?? []) }
  }

  /// Every PromQL expression of a dashboard: panel targets, annotations, variable queries.
  static func expressions(_ dashboard: [String: Any]) -> [String] {
    var found: [String] = []
    for panel in panels(dashboard) {
      for target in panel["targets"] as? [[String: Any]] ?? [] {
        if let expr = target["expr"] as? String { found.append(expr) }
      }
    }
    let annotations = (dashboard["annotations"] as? [String: Any])?["list"] as? [[String: Any]]
    for annotation in annotations ?? [] {
      if let expr = annotation["expr"] as? String { found.append(expr) }
    }
    for variable in variables(dashboard) where variable["type"] as? String == "query" {
      if let definition = variable["definition"] as? String { found.append(definition) }
    }
    return found
  }

  static func variables(_ dashboard: [String: Any]) -> [[String: Any]] {
    (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
  }

  // MARK: Rules

  /// The rules of each file of config/rules/, with the file's path.
  static func rules() throws -> [(path: String, rule: [String: Any])] {
    try files(in: "config/rules", suffix: ".yml").flatMap { path in
      guard let document = try Yams.load(yaml: try text(path)) as? [String: Any],
        let groups = document["groups"] as? [[String: Any]]
      else { throw KitError("\(path): no rule groups") }
      return groups.flatMap { group in
        (group["rules"] as? [[String: Any]] ?? []).map { (path, $0) }
      }
    }
  }

  // MARK: PromQL

  /// A series selector of an expression: the metric name and its matchers' label names.
  struct Selector: Equatable {
    var name: String
    var labels: [String]
  }

  /// The names an expression selects series by (identifiers not followed by `(`, so not
  /// functions or aggregations; not Grafana's `$variables`), with their matchers' label names.
  /// Label names of `by (...)` and the like come out too: callers look only at names with the
  /// `netquality_` prefix or a colon (recording rules). Good enough for our own expressions:
  /// no string holds a brace.
  static func selectors(_ expression: String) throws -> [Selector] {
    // Strings out first: a label value can hold anything ("poor|bad", "$peer", "(.+)").
    let unquoted = try replace(#""(?:[^"\\]|\\.)*""#, in: expression, with: "\"\"")
    return try matches(#"(?<![\w$:.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?\s*(\()?"#, unquoted)
      .compactMap { groups in
        guard groups[3] == nil, let name = groups[1] else { return nil }
        let labels = try groups[2].map { body in
          try matches(#"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)"#, body).compactMap { $0[1] }
        }
        return Selector(name: name, labels: labels ?? [])
      }
  }

  /// Each match's capture groups (0: the whole match; nil: a group that did not take part).
  static func matches(_ pattern: String, _ text: String) throws -> [[String?]] {
    let regex = try NSRegularExpression(pattern: pattern)
    let whole = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: whole).map { match in
      (0..<match.numberOfRanges).map { index in
        Range(match.range(at: index), in: text).map { String(text[$0]) }
      }
    }
  }

  static func replace(_ pattern: String, in text: String, with template: String) throws
    -> String
  {
    let regex = try NSRegularExpression(pattern: pattern)
    return regex.stringByReplacingMatches(
      in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
  }

  struct KitError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
