/// One subsystem's part of `/metrics` (the collector pattern of Prometheus' client libraries and
/// node_exporter): the families it can write, declared in its own file beside it, and the
/// samples it writes at a render from the figures it was built with.
///
/// Adding a subsystem's metrics is four files: a `…Collector.swift` in this folder (its
/// `MetricFamily` statics, this conformance and its `example`), its type in
/// `MetricCatalogue.collectors` at the place its families take in `/metrics` (the one place the
/// order is declared), its registration in the agent's `MetricsRegistry` (how it is built from
/// the subsystem; or `TickMetrics` for what the tick publishes) and its rows in
/// docs/metrics.md. The tests (`MetricCatalogueTests`, `MetricsRegistryTests`) find it from
/// there.
public protocol MetricsCollector: Sendable {
  /// Every family the collector can write, in the order it writes them.
  static var families: [MetricFamily] { get }

  /// A collector that writes every one of its families with a sample, for the catalogue's
  /// checks (every family rendered with its type, help and labels, and in docs/metrics.md);
  /// nil for one built from a whole tick (`TickMetrics`), whose tests build it from a replay.
  static var example: Self? { get }

  /// Writes the families (each with its HELP and TYPE) and their samples.
  func collect(into out: inout MetricsWriter)
}

extension MetricsCollector {
  public static var example: Self? { nil }

  /// `example`, through the existential metatype of `MetricCatalogue.collectors`.
  public static var anyExample: (any MetricsCollector)? { example }
}
