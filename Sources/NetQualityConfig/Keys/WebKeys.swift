/// The HTTP listener (read once at start) and the web configuration file (read again by every
/// reload: users, headers, the rate limit and the certificate apply at once; the rest of
/// `tls_server_config` waits for a restart, `WebConfiguration.listenerSettingsDiffer`).
enum WebKeys {
  static let all: [ConfigurationKey] = [
    .value("listen", \.listen, .restart) { walker, node, name in
      guard let text = walker.string(node, name) else { return nil }
      guard let address = ListenAddress(text) else {
        walker.issue(
          node, name, "'\(text)': \(ListenAddress.problem(text) ?? ListenAddress.expected)")
        return nil
      }
      return address
    },
    .string("web_config_file", \.webConfigFile, .live),
  ]
}

extension AgentConfiguration {
  /// Where the HTTP server listens, as one value.
  public var listen: ListenAddress {
    get { ListenAddress(host: listenHost, port: listenPort) }
    set {
      listenHost = newValue.host
      listenPort = newValue.port
    }
  }
}
