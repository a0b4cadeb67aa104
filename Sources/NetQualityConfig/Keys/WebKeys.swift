import Yams

/// The HTTP listener (read once at start) and the web configuration file (read again by every
/// reload: users, headers, the rate limit and the certificate apply at once; the rest of
/// `tls_server_config` waits for a restart, `WebConfiguration.listenerSettingsDiffer`).
enum WebKeys {
  static let all: [ConfigurationKey] = [
    // One address, or a list of them (the first names the agent: its alerts' `instance`),
    // as the exporter toolkit's repeated --web.listen-address.
    .value("listen", \.listenAddresses, .restart) { walker, node, name in
      func address(_ node: Node, _ path: String) -> ListenAddress? {
        guard let text = walker.string(node, path) else { return nil }
        switch ListenAddress.parse(text) {
        case .success(let address): return address
        case .failure(let failure):
          walker.issue(node, path, "'\(text)': \(failure.message)")
          return nil
        }
      }
      guard node.sequence != nil else { return address(node, name).map { [$0] } }
      let items = walker.list(node, name)
      var addresses: [ListenAddress] = []
      for (index, item) in items.enumerated() {
        guard let found = address(item, "\(name)[\(index)]") else { return nil }
        guard !addresses.contains(found) else {
          walker.issue(item, "\(name)[\(index)]", "'\(found)' is listed twice")
          return nil
        }
        addresses.append(found)
      }
      guard !addresses.isEmpty else {
        walker.issue(node, name, "expected an address or a list of at least one")
        return nil
      }
      return addresses
    },
    // The exporter toolkit's --web.telemetry-path: where /metrics is served instead.
    .value("telemetry_path", \.telemetryPath, .restart) { walker, node, name in
      guard let path = walker.string(node, name) else { return nil }
      if let problem = TelemetryPath.problem(path) {
        walker.issue(node, name, problem)
        return nil
      }
      return path
    },
    .string("web_config_file", \.webConfigFile, .live),
  ]
}

extension AgentConfiguration {
  /// Where the HTTP server listens first, as one value.
  public var listen: ListenAddress {
    get { ListenAddress(host: listenHost, port: listenPort, hostName: listenHostName) }
    set {
      listenHost = newValue.host
      listenPort = newValue.port
      listenHostName = newValue.hostName
    }
  }

  /// Every address the HTTP server listens on, the first first; setting an empty list changes
  /// nothing.
  public var listenAddresses: [ListenAddress] {
    get { [listen] + moreListenAddresses }
    set {
      guard let first = newValue.first else { return }
      listen = first
      moreListenAddresses = Array(newValue.dropFirst())
    }
  }
}
