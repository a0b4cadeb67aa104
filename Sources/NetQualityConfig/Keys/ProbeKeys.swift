/// STAMP probe targets, applied by a reload (the probe thread and the engine change together:
/// `ProbeService.apply`), the probe round trip's buckets and the reflector, read once at start
/// (its socket is opened then).
enum ProbeKeys {
  static let all: [ConfigurationKey] = [
    .value("probes", \.probes, .live) { walker, node, _ in walker.probes(node) },
    // A histogram's buckets are fixed for the life of its series: a new layout would mix two
    // sets of `le` in one series' history.
    .value("probe_rtt_buckets", \.engine.probeRoundTripBoundsSeconds, .restart) {
      walker, node, name in walker.bucketBounds(node, name)
    },
    // Who may send where is a decision for each request, so it follows the file at once.
    .value("probe_endpoint.allow", \.probeEndpoint.allow, .live) { walker, node, name in
      walker.probeAllowRules(node, name)
    },
    .bool("reflector.enabled", \.reflector.enabled, .restart),
    .value("reflector.listen", \.reflector.listen, .restart) { walker, node, name in
      walker.endpoint(node, name, allowAny: true)
    },
    .string("reflector.auth_key_file", \.reflector.authKeyFile, .restart),
    .value("reflector.allow", \.reflector.allow, .restart) { walker, node, name in
      walker.prefixes(node, name)
    },
    .number("reflector.rate_limit", \.reflector.rateLimitPerSecond, in: 1...1_000_000, .restart),
    .integer("reflector.burst", \.reflector.burst, in: 1...1_000_000, .restart),
    .bool("reflector.clock_synchronized", \.reflector.clockSynchronized, .restart),
  ]
}
