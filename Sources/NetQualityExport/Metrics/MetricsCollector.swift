/// One subsystem's part of `/metrics` (the collector pattern of Prometheus' client libraries and
/// node_exporter): the families it can write, declared in its own file beside it, and the
/// samples it writes at a render from the figures it was built with.
///
/// Adding a subsystem's metrics: a `…Collector.swift` in this folder (its `MetricFamily`
/// statics and this conformance), its type in `MetricCatalogue.collectors` at the place its
/// families take in `/metrics`, the line that builds it from the subsystem (the agent's
/// `MetricsRegistry`, or `TickMetrics` for what the tick publishes) and its rows in
/// docs/metrics.md.
public protocol MetricsCollector: Sendable {
  /// Every family the collector can write, in the order it writes them.
  static var families: [MetricFamily] { get }

  /// Writes the families (each with its HELP and TYPE) and their samples.
  func collect(into out: inout MetricsWriter)
}
