import Yams

/// Who is local and how remote addresses are named: applied by a reload.
enum PeerKeys {
  static let all: [ConfigurationKey] = [
    .value("local_networks", \.localNetworks, .live) { walker, node, name in
      walker.prefixes(node, name)
    },
    .value("peers", \.peerGroups, .live) { walker, node, _ in walker.peerGroups(node) },
  ]
}

extension Walker {
  mutating func peerGroups(_ node: Node) -> [AgentConfiguration.PeerGroup] {
    let items = list(node, "peers")
    guard items.count <= AgentConfiguration.maximumPeerGroups else {
      issue(
        node, "peers",
        "\(items.count) peer groups; at most \(AgentConfiguration.maximumPeerGroups) (a group "
          + "can hold many networks)")
      return []
    }
    return items.enumerated().compactMap { index, item in
      let path = "peers[\(index)]"
      let fields = entries(item, path, known: ["name", "addresses"])
      guard let nameNode = fields["name"], let name = string(nameNode, "\(path).name") else {
        issue(item, "\(path).name", "every peer group needs a name")
        return nil
      }
      guard let addresses = fields["addresses"] else {
        issue(item, "\(path).addresses", "every peer group needs addresses")
        return nil
      }
      return AgentConfiguration.PeerGroup(
        name: name, networks: prefixes(addresses, "\(path).addresses"))
    }
  }
}
