/// `/metrics` in the Prometheus text exposition format 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/), rendered at scrape time
/// from the collectors the agent registers (`MetricsCollector`, the collector pattern): names
/// prefixed `netquality_`, base units, counters ending in `_total`, label values escaped.
public enum PrometheusExposition {
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// The collectors' families and samples, one collector after the other.
  public static func render(_ collectors: [any MetricsCollector]) -> String {
    var out = MetricsWriter()
    for collector in collectors { collector.collect(into: &out) }
    return out.text
  }
}
