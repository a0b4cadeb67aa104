/// The clients the relay has heard from, each with an upstream socket of its own: the target
/// replies to the port it was sent from, so the socket a reply comes back on says whose it is.
/// Clients are never forgotten; a test relay lives for one test.
struct ClientTable {
  /// Enough for any test's callers; each costs a descriptor and a slot in every wait.
  static let limit = 64

  struct Client {
    let address: SocketAddress
    let upstream: UDPSocket
  }

  private(set) var clients: [Client] = []
  let targetFamily: Int32

  init(targetFamily: Int32) {
    self.targetFamily = targetFamily
  }

  /// The index of the client at `address`, added (with a new upstream socket) if it is new; nil
  /// when the table is full or no upstream socket could be opened (`problem` then says why).
  mutating func index(of address: SocketAddress) -> (index: Int?, problem: RelayError?) {
    if let known = clients.firstIndex(where: { $0.address.isSamePeer(as: address) }) {
      return (known, nil)
    }
    guard clients.count < Self.limit else { return (nil, nil) }
    do {
      let upstream = try UDPSocket(family: targetFamily)
      guard upstream.descriptor < DescriptorSet.limit else {
        return (nil, RelayError("descriptor \(upstream.descriptor) is too high to wait on"))
      }
      // Bound now, so the socket has its port before the first packet leaves on it.
      try upstream.bind(to: .wildcard(family: targetFamily))
      clients.append(Client(address: address, upstream: upstream))
      return (clients.count - 1, nil)
    } catch {
      return (nil, error)
    }
  }
}
