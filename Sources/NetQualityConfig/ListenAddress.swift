import NetQualityCore

/// A listen address: `ADDRESS:PORT`, `[IPv6]:PORT`, `:PORT` for every IPv4 address, or
/// `NAME:PORT` with a host name, resolved once when it is read (`HostNameResolver`: the first
/// IPv4 address, else the first, as Go's `net.Listen` takes it). The same form names a probe
/// target and the reflector's address.
public struct ListenAddress: Sendable {
  /// The IP address the socket is bound to (or sent to).
  public var host: String
  public var port: Int
  /// The host name as written (`localhost`), nil when an IP address was: what the agent is
  /// called by (its alerts' `instance`) and shown as, beside the address it resolved to.
  public var hostName: String?

  /// What a listen address must look like, for error messages.
  public static let expected =
    "expected HOST:PORT with an IP address or a host name (e.g. 127.0.0.1:9470, [::1]:9470, "
    + ":9470, localhost:9470)"

  public init(host: String, port: Int, hostName: String? = nil) {
    self.host = host
    self.port = port
    self.hostName = hostName
  }

  /// What is wrong with `text` as a listen address, in words; nil when it is one.
  public static func problem(_ text: String) -> String? {
    guard case .failure(let failure) = parse(text) else { return nil }
    return failure.message
  }

  public init?(_ text: String) {
    guard case .success(let address) = Self.parse(text) else { return nil }
    self = address
  }

  /// `text` read as a listen address, a host name resolved; or what is wrong with it.
  public static func parse(_ text: String) -> Result<ListenAddress, HostNameResolver.Failure> {
    guard let colon = text.lastIndex(of: ":") else {
      return .failure(.init(expected))
    }
    let portText = text[text.index(after: colon)...]
    guard let port = Int(portText) else {
      return .failure(.init("'\(portText)' is not a port number; \(expected)"))
    }
    guard (1...65_535).contains(port) else {
      return .failure(.init("port \(port) is out of range 1...65535"))
    }
    var host = String(text[..<colon])
    let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
    if bracketed { host = String(host.dropFirst().dropLast()) }
    if host.isEmpty { return .success(ListenAddress(host: "0.0.0.0", port: port)) }
    if let address = IPAddress(host) {
      return .success(ListenAddress(host: address.description, port: port))
    }
    guard !bracketed, HostNameResolver.isHostName(host) else {
      return .failure(.init("'\(host)' is neither an IP address nor a host name; \(expected)"))
    }
    return HostNameResolver.address(of: host).map {
      ListenAddress(host: $0.description, port: port, hostName: host)
    }
  }
}

/// Two addresses are the same socket when they resolve to the same address and port, however
/// written (`localhost:9470` and `127.0.0.1:9470` cannot both listen).
extension ListenAddress: Equatable {
  public static func == (left: ListenAddress, right: ListenAddress) -> Bool {
    left.host == right.host && left.port == right.port
  }
}

extension ListenAddress: CustomStringConvertible {
  /// `127.0.0.1:9470`, `[::1]:9470`: the address it is bound to.
  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  /// As written when a host name was (`localhost:9470`), else `description`.
  public var written: String { hostName.map { "\($0):\(port)" } ?? description }

  /// `localhost:9470 (127.0.0.1)` for a host name, `127.0.0.1:9470` for an address: for logs.
  public var shown: String { hostName.map { "\($0):\(port) (\(host))" } ?? description }
}
