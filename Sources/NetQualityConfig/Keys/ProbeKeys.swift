/// STAMP probe targets and the reflector: read once at start (their sockets are opened then,
/// and the engine names and filters the targets the probe threads send to: both must keep the
/// started list until a restart).
enum ProbeKeys {
  static let all: [ConfigurationKey] = [
    .value("probes", \.probes, .restart) { walker, node, _ in walker.probes(node) },
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
