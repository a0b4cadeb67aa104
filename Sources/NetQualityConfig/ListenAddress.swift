import NetQualityCore

/// A listen address: `ADDRESS:PORT`, `[IPv6]:PORT`, or `:PORT` for every IPv4 address. The
/// address must be an IP address: a host name would be resolved (to whichever address the
/// resolver prefers, and again differently after a change) instead of naming the socket.
public struct ListenAddress: Sendable, Equatable {
  public var host: String
  public var port: Int

  /// What a listen address must look like, for error messages.
  public static let expected =
    "expected ADDRESS:PORT with an IP address (e.g. 127.0.0.1:9470, [::1]:9470, :9470); "
    + "host names are not resolved"

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// What is wrong with `text` as a listen address, in words; nil when it is one.
  public static func problem(_ text: String) -> String? {
    guard ListenAddress(text) == nil else { return nil }
    guard let colon = text.lastIndex(of: ":") else { return expected }
    let portText = text[text.index(after: colon)...]
    guard let port = Int(portText) else {
      return "'\(portText)' is not a port number; \(expected)"
    }
    guard (1...65_535).contains(port) else { return "port \(port) is out of range 1...65535" }
    var host = String(text[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return "'\(host)' is not an IP address; host names are not resolved "
      + "(e.g. 127.0.0.1:9470, [::1]:9470, :9470)"
  }

  public init?(_ text: String) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (1...65_535).contains(port)
    else { return nil }
    var host = String(text[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host.isEmpty {
      host = "0.0.0.0"
    } else {
      guard let address = IPAddress(host) else { return nil }
      host = address.description
    }
    self.host = host
    self.port = port
  }
}

extension ListenAddress: CustomStringConvertible {
  /// `127.0.0.1:9470`, `[::1]:9470`.
  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
