import NetQualityConfig
import NetQualityCore
import NetQualityProbe

/// The `ADDR:PORT` of `probe` and `reflect --listen`: an IP address (`Endpoint(parsing:)`), or a
/// host name resolved once, as the configuration's addresses are (`HostNameResolver`: the first
/// IPv4 address, else the first).
enum EndpointArgument {
  static let expected =
    "\(Endpoint.expectedForm), or NAME:PORT with a host name (e.g. localhost:862)"

  static func parse(_ text: String) -> Result<Endpoint, HostNameResolver.Failure> {
    if let endpoint = Endpoint(parsing: text) { return .success(endpoint) }
    guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...])
    else { return .failure(.init(expected)) }
    let host = String(text[..<colon])
    guard HostNameResolver.isHostName(host) else { return .failure(.init(expected)) }
    return HostNameResolver.address(of: host).map { Endpoint(address: $0, port: port) }
  }
}
