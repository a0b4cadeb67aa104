import NetQualityCore

extension Endpoint {
  /// What `init?(parsing:)` takes, for error messages.
  public static let expectedForm =
    "expected ADDRESS:PORT with an IP address (e.g. 0.0.0.0:862, [::]:862, 127.0.0.1:0)"

  /// Parses `a.b.c.d:PORT` or `[IPv6]:PORT`, port 0 ... 65535 (0: the kernel picks one when
  /// binding). Host names are not resolved; nil for anything else.
  public init?(parsing text: String) {
    guard let colon = text.lastIndex(of: ":"),
      let port = UInt16(text[text.index(after: colon)...])
    else { return nil }
    var host = text[..<colon]
    if host.hasPrefix("[") {
      guard host.hasSuffix("]") else { return nil }
      host = host.dropFirst().dropLast()
      guard host.contains(":") else { return nil }
    } else if host.contains(":") {
      // Bare IPv6 is ambiguous with its port: brackets are required.
      return nil
    }
    guard let address = IPAddress(host) else { return nil }
    self.init(address: address, port: port)
  }
}
