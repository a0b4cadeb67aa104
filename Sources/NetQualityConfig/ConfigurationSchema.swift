import Yams

/// Every key of the configuration file, in the order of config/netquality.yaml, and the
/// checks across keys: what the loader reads and `ConfigurationKeys` reports.
enum ConfigurationSchema {
  static let keys: [ConfigurationKey] =
    CaptureKeys.all + PeerKeys.all + EngineKeys.all + QualityKeys.all + AlertKeys.all
    + WebKeys.all + MetricsKeys.all + DashboardKeys.all + ProbeKeys.all + StorageKeys.all
    + AlertKeys.alertmanager + CallKeys.all

  static let checks: [ConfigurationCheck] = EngineKeys.checks
}

extension Walker {
  /// Reads the mapping at `path` ("" for the file's root): each entry is a declared key, read
  /// by its declaration, or a section holding keys, read the same way; anything else is an
  /// unknown key. Entries are read in the declarations' order, whatever the file's.
  mutating func read(
    _ node: Node, path: String, keys: [ConfigurationKey],
    into configuration: inout AgentConfiguration
  ) {
    let prefix = path.isEmpty ? "" : path + "."
    var children: [String] = []
    for key in keys where key.name.hasPrefix(prefix) {
      let child = String(key.name.dropFirst(prefix.count).prefix { $0 != "." })
      if !children.contains(child) { children.append(child) }
    }
    let fields = entries(node, path, known: children)
    for child in children {
      guard let field = fields[child] else { continue }
      let name = prefix + child
      if let key = keys.first(where: { $0.name == name }) {
        key.read(&self, field, &configuration)
      } else {
        read(
          field, path: name, keys: keys.filter { $0.name.hasPrefix(name + ".") },
          into: &configuration)
      }
    }
  }
}
