/// A listen address: `HOST:PORT`, `[v6]:PORT`, or `:PORT` for every address.
public struct ListenAddress: Sendable, Equatable {
  public var host: String
  public var port: Int

  public init?(_ text: String) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (1...65_535).contains(port)
    else { return nil }
    var host = String(text[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    self.host = host.isEmpty ? "0.0.0.0" : host
    self.port = port
  }
}
