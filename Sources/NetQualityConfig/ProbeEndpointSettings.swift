import NetQualityCore

/// One entry of `probe_endpoint.allow`: a network and, optionally, one port that `GET /probe`
/// may send to beyond the configured `probes:` targets.
public struct ProbeAllowRule: Sendable, Equatable, CustomStringConvertible {
  public var network: NetworkPrefix
  /// nil: any port.
  public var port: UInt16?

  public init(network: NetworkPrefix, port: UInt16? = nil) {
    self.network = network
    self.port = port
  }

  /// `CIDR` (any port), `CIDR:PORT` for IPv4, `[CIDR]:PORT` for IPv6 (as listen addresses
  /// bracket an IPv6 address); a bare address is a /32 or /128. Nil for anything else.
  public init?(_ text: String) {
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"),
        let network = NetworkPrefix(String(text[text.index(after: text.startIndex)..<close]))
      else { return nil }
      let rest = text[text.index(after: close)...]
      guard rest.first == ":", let port = UInt16(rest.dropFirst()), port != 0 else { return nil }
      self.init(network: network, port: port)
    } else if let network = NetworkPrefix(text) {
      self.init(network: network)
    } else {
      guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":"),
        let network = NetworkPrefix(String(text[..<colon])),
        let port = UInt16(text[text.index(after: colon)...]), port != 0
      else { return nil }
      self.init(network: network, port: port)
    }
  }

  public func admits(_ endpoint: Endpoint) -> Bool {
    network.contains(endpoint.address) && (port.map { $0 == endpoint.port } ?? true)
  }

  public var description: String {
    guard let port else { return network.description }
    return network.description.contains(":") ? "[\(network)]:\(port)" : "\(network):\(port)"
  }

  /// What the loader says an entry should look like.
  public static let expected =
    "expected CIDR (any port), CIDR:PORT or [IPv6 CIDR]:PORT (192.0.2.0/24, 192.0.2.10:862, "
    + "[2001:db8::/32]:862)"
}

/// The `probe_endpoint:` section: where `GET /probe` may send. By default only to the
/// configured `probes:` targets; never to the agent's own sockets (its HTTP port, its
/// reflector), whatever this says.
public struct ProbeEndpointSettings: Sendable, Equatable {
  /// Networks (and ports) allowed beyond the configured targets; empty: none.
  public var allow: [ProbeAllowRule] = []

  public init() {}
}
