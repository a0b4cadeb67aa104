/// The agent's own STAMP traffic (RFC 8762): to and from its probe targets and its reflector.
/// The probes are measured by the probe session itself; the capture sees them too, and without
/// this they could pass for RTP (a sequence number from 2^31 on has RTP's version bits) or be
/// counted as unknown UDP. Matching datagrams are counted and go no further.
public struct ProbeTrafficFilter: Sendable, Equatable {
  /// Endpoints whose traffic is ours; an unspecified address (0.0.0.0, ::) matches any address
  /// on that port (a reflector listening on all addresses).
  public var endpoints: [Endpoint] = [] {
    didSet { index() }
  }
  private var ports: [UInt16] = []
  /// With many targets (an agent probing a thousand reflectors sees 40,000 of its own packets a
  /// second), hashed: the ports first, then the endpoint itself.
  private var portSet: Set<UInt16> = []
  private var exact: Set<Endpoint> = []
  private var anyAddressPorts: Set<UInt16> = []

  /// Up to this many endpoints are compared one by one (cheaper than hashing).
  static let linearLimit = 8

  public init(endpoints: [Endpoint] = []) {
    self.endpoints = endpoints
    index()
  }

  private mutating func index() {
    ports = endpoints.map(\.port)
    guard endpoints.count > Self.linearLimit else {
      (portSet, exact, anyAddressPorts) = ([], [], [])
      return
    }
    portSet = Set(ports)
    exact = Set(endpoints.filter { !Self.isAny($0.address) })
    anyAddressPorts = Set(endpoints.filter { Self.isAny($0.address) }.map(\.port))
  }

  public var isEmpty: Bool { ports.isEmpty }

  /// Whether the datagram goes to or comes from one of the endpoints. A few ports compared
  /// first, addresses only on a port match: nothing allocated, and nothing at all without
  /// probes.
  @inline(__always)
  public func matches(_ datagram: UDPDatagram) -> Bool {
    if ports.count > Self.linearLimit {
      return hashedMatch(datagram.destinationAddress, datagram.destinationPort)
        || hashedMatch(datagram.sourceAddress, datagram.sourcePort)
    }
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

  private func hashedMatch(_ address: IPAddress, _ port: UInt16) -> Bool {
    guard portSet.contains(port) else { return false }
    return anyAddressPorts.contains(port) || exact.contains(Endpoint(address: address, port: port))
  }

  private static func isAny(_ address: IPAddress) -> Bool {
    address == IPAddress(high: 0, low: 0) || address == IPAddress(ipv4: 0, 0, 0, 0)
  }

  private static func matches(_ configured: IPAddress, _ address: IPAddress) -> Bool {
    configured == address || isAny(configured)
  }
}
