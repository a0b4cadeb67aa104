/// One metric family the agent can expose: name, type, help text and the label names its
/// samples may carry. Every family is declared once, beside the collector that writes it
/// (`Metrics/*Collector.swift`); collectors write samples of these values (never a name typed
/// again), and `docs/metrics.md`, the dashboards and the Prometheus rules are checked against
/// the catalogue (`MetricCatalogue`: every collector's families) by the tests.
public struct MetricFamily: Sendable, Hashable {
  /// The exposition format's TYPE (https://prometheus.io/docs/instrumenting/exposition_formats/).
  public enum Kind: String, Sendable, CaseIterable {
    case gauge, counter, histogram, summary
  }

  public let name: String
  public let kind: Kind
  public let help: String
  /// Label names the samples may carry (a histogram's `le` not included); which of them a
  /// sample has can depend on what it is about (`alerts_firing`: `peer` or `kind`).
  public let labels: [String]
  /// The `# HELP` and `# TYPE` lines, built once rather than at every render.
  let header: String
  /// A histogram's series names (`_bucket`, `_sum`, `_count`), built once; empty otherwise.
  let bucketName: String
  let sumName: String
  let countName: String

  init(_ name: String, _ kind: Kind, labels: [String], help: String) {
    self.name = name
    self.kind = kind
    self.help = help
    self.labels = labels
    header = "# HELP \(name) \(MetricsWriter.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    let histogram = kind == .histogram
    let sums = histogram || kind == .summary
    bucketName = histogram ? name + "_bucket" : ""
    sumName = sums ? name + "_sum" : ""
    countName = sums ? name + "_count" : ""
  }

  static func gauge(_ name: String, labels: [String] = [], _ help: String) -> Self {
    Self(name, .gauge, labels: labels, help: help)
  }

  static func counter(_ name: String, labels: [String] = [], _ help: String) -> Self {
    Self(name, .counter, labels: labels, help: help)
  }

  static func histogram(_ name: String, labels: [String] = [], _ help: String) -> Self {
    Self(name, .histogram, labels: labels, help: help)
  }

  static func summary(_ name: String, labels: [String] = [], _ help: String) -> Self {
    Self(name, .summary, labels: labels, help: help)
  }

  /// The names a query can use for the family's series: its name, a histogram's `_bucket`,
  /// `_sum` and `_count`, or a summary's name (its quantiles), `_sum` and `_count`.
  public var seriesNames: [String] {
    switch kind {
    case .histogram: [bucketName, sumName, countName]
    case .summary: [name, sumName, countName]
    case .gauge, .counter: [name]
    }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
