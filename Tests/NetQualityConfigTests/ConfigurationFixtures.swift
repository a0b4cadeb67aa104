import NetQualityConfig

/// YAML text loaded as the agent loads a file, and its issues as `LINE KEY: MESSAGE` lines:
/// what the section tests compare against. Host names resolve offline: `localhost` by the
/// system's resolver (its hosts file), any other name not at all (`offlineResolve`), so no
/// test sends a DNS query.
protocol ConfigurationFixtures {}

/// `localhost` as getaddrinfo(3) resolves it; every other name fails as glibc says so.
let offlineResolve: HostNameResolver.Resolve = { name in
  name == "localhost"
    ? HostNameResolver.systemResolve(name)
    : .failure(.init("cannot resolve '\(name)': Name or service not known"))
}

extension ConfigurationFixtures {
  func load(_ yaml: String) throws(ConfigurationError) -> AgentConfiguration {
    try HostNameResolver.$resolve.withValue(offlineResolve) {
      Result { () throws(ConfigurationError) in
        try ConfigurationLoader.load(yaml: yaml, file: "test.yaml")
      }
    }.get()
  }

  func issues(_ yaml: String) -> [String] {
    do throws(ConfigurationError) {
      _ = try load(yaml)
      return []
    } catch {
      return error.issues.map { "\($0.line ?? 0) \($0.key): \($0.message)" }
    }
  }
}
