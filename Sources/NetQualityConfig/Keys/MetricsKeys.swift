/// What `/metrics` exposes beyond the fleet series (docs/metrics.md, the series budget):
/// applied by a reload, from the next tick.
enum MetricsKeys {
  static let all: [ConfigurationKey] = [
    .bool("metrics.per_stream", \.perStreamMetrics, .live),
    .integer("metrics.max_stream_series", \.maxStreamSeries, in: 1...1_000_000, .live),
    .integer("metrics.max_peer_series", \.maxPeerSeries, in: 0...1_000_000, .live),
    .number("metrics.peer_grace_seconds", \.peerGraceSeconds, in: 0...86_400, .live),
  ]
}
