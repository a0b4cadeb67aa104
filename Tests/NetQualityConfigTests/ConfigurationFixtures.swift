import NetQualityConfig

/// YAML text loaded as the agent loads a file, and its issues as `LINE KEY: MESSAGE` lines:
/// what the section tests compare against.
protocol ConfigurationFixtures {}

extension ConfigurationFixtures {
  func load(_ yaml: String) throws(ConfigurationError) -> AgentConfiguration {
    try ConfigurationLoader.load(yaml: yaml, file: "test.yaml")
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
