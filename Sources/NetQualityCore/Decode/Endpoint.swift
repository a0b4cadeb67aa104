/// A UDP endpoint: address and port.
public struct Endpoint: Hashable, Sendable {
  public var address: IPAddress
  public var port: UInt16

  public init(address: IPAddress, port: UInt16) {
    self.address = address
    self.port = port
  }
}

extension Endpoint: CustomStringConvertible {
  /// `a.b.c.d:port` or `[v6]:port` (RFC 5952 section 6).
  public var description: String {
    address.isIPv4 ? "\(address):\(port)" : "[\(address)]:\(port)"
  }
}
