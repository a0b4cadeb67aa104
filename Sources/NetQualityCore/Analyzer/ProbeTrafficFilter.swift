/// The agent's own STAMP traffic (RFC 8762): to and from its probe targets and its reflector.
/// The probes are measured by the probe session itself; the capture sees them too, and without
/// this they could pass for RTP (a sequence number from 2^31 on has RTP's version bits) or be
/// counted as unknown UDP. Matching datagrams are counted and go no further.
public struct ProbeTrafficFilter: Sendable, Equatable {
  /// Endpoints whose traffic is ours; an unspecified address (0.0.0.0, ::) matches any address
  /// on that port (a reflector listening on all addresses).
  public var endpoints: [Endpoint] = [] {
    didSet { ports = endpoints.map(\.port) }
  }
  private var ports: [UInt16] = []

  public init(endpoints: [Endpoint] = []) {
    self.endpoints = endpoints
    ports = endpoints.map(\.port)
  }

  public var isEmpty: Bool { ports.isEmpty }

  /// Whether the datagram goes to or comes from one of the endpoints. A few ports compared
  /// first, addresses only on a port match: nothing allocated, and nothing at all without
  /// probes.
  @inline(__always)
  public func matches(_ datagram: UDPDatagram) -> Bool {
    for (index, port) in ports.enumerated() {
      if port == datagram.destinationPort
        && Self.matches(endpoints[index].address, datagram.destinationAddress)
      {
        return true
      }
      if port == datagram.sourcePort
        && Self.matches(endpoints[index].address, datagram.sourceAddress)
      {
        return true
      }
    }
    return false
  }

  private static func matches(_ configured: IPAddress, _ address: IPAddress) -> Bool {
    configured == address || configured == IPAddress(high: 0, low: 0)
      || configured == IPAddress(ipv4: 0, 0, 0, 0)
  }
}
