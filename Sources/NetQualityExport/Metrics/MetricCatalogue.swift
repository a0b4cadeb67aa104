/// Every metric family the agent can expose: the families of every collector, each declared
/// once beside the collector that writes it (`Metrics/*Collector.swift`: name, type, labels,
/// help). Names follow Prometheus naming (https://prometheus.io/docs/practices/naming/): the
/// `netquality_` prefix (the process collector's standard `process_*` names aside), base units, counters ending in `_total`. `MetricCatalogueTests` holds a
/// full exposition, docs/metrics.md, the dashboards and the Prometheus rules to it.
public enum MetricCatalogue {
  /// Every collector, in the order of `/metrics` (the agent's `MetricsRegistry` builds them in
  /// this order; `TickMetrics` is the tick's collectors, rendered once per tick).
  public static let collectors: [any MetricsCollector.Type] = [
    BuildInfoCollector.self, TickMetrics.self, CaptureInterfacesCollector.self,
    EngineCollector.self, ProbeSenderCollector.self, ReflectorCollector.self,
    StorageCollector.self, DashboardCollector.self, WebSecurityCollector.self,
    AlertmanagerCollector.self, ConfigurationCollector.self, ScrapeDurationCollector.self,
    HTTPConnectionsCollector.self, ProcessCollector.self,
  ]

  /// The collectors' families, in the order of `/metrics`.
  public static let families = collectors.flatMap { $0.families }

  /// The family of a series name (a histogram's `_bucket`, `_sum`, `_count` included).
  public static func family(ofSeries name: String) -> MetricFamily? {
    families.first { $0.seriesNames.contains(name) }
  }
}
