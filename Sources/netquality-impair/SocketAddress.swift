import Glibc

/// An IPv4 or IPv6 address with a port, held as the `sockaddr` the socket calls take.
struct SocketAddress: CustomStringConvertible, Sendable {
  private(set) var storage = sockaddr_storage()
  private(set) var length: socklen_t = 0

  /// Parses `A.B.C.D:PORT`, `[IPV6]:PORT` or `[IPV6%INTERFACE]:PORT` (numeric addresses only:
  /// a test relay should never wait on a resolver). Nil when the text is none of these.
  init?(parsing text: String) {
    let isBracketed = text.hasPrefix("[")
    let host: Substring
    let portText: Substring
    if isBracketed {
      guard let close = text.firstIndex(of: "]"),
        text[text.index(after: close)...].hasPrefix(":")
      else { return nil }
      host = text[text.index(after: text.startIndex)..<close]
      portText = text[text.index(close, offsetBy: 2)...]
    } else {
      guard let colon = text.lastIndex(of: ":") else { return nil }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
    }
    let parsed =
      isBracketed ? Self.ipv6(host: host, port: portText) : Self.ipv4(host: host, port: portText)
    guard let parsed else { return nil }
    self = parsed
  }

  /// An address a socket call filled in (`recvfrom`, `getsockname`).
  init(storage: sockaddr_storage, length: socklen_t) {
    self.storage = storage
    self.length = length
  }

  /// The wildcard address of `family` with port 0: where an upstream socket binds, so the
  /// kernel picks its port and the route picks its source address.
  static func wildcard(family: Int32) -> SocketAddress {
    var address = SocketAddress(storage: sockaddr_storage(), length: 0)
    if family == AF_INET6 {
      var ipv6 = sockaddr_in6()
      ipv6.sin6_family = sa_family_t(AF_INET6)
      address.store(ipv6)
    } else {
      var ipv4 = sockaddr_in()
      ipv4.sin_family = sa_family_t(AF_INET)
      address.store(ipv4)
    }
    return address
  }

  var family: Int32 { Int32(storage.ss_family) }

  var port: UInt16 {
    withUnsafeBytes(of: storage) { raw in
      // sin_port and sin6_port sit at the same offset, in network byte order.
      UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
    }
  }

  /// `A.B.C.D:PORT` or `[IPV6]:PORT`, as a user would type it.
  var description: String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    withUnsafeBytes(of: storage) { raw in
      let offset = family == AF_INET6 ? 8 : 4  // sin6_addr / sin_addr
      _ = inet_ntop(family, raw.baseAddress.map { $0 + offset }, &text, socklen_t(text.count))
    }
    let host = String(
      decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// Same family, address, port (and IPv6 scope): what makes two datagrams come from the same
  /// peer. The raw bytes would also compare padding and the IPv6 flow label.
  func isSamePeer(as other: SocketAddress) -> Bool {
    guard family == other.family, port == other.port else { return false }
    return withUnsafeBytes(of: storage) { mine in
      withUnsafeBytes(of: other.storage) { theirs in
        if family == AF_INET6 {
          // sin6_addr (16 bytes at 8) and sin6_scope_id (4 bytes at 24).
          return mine[8..<28].elementsEqual(theirs[8..<28])
        }
        return mine[4..<8].elementsEqual(theirs[4..<8])
      }
    }
  }

  func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    withUnsafePointer(to: storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }

  private static func ipv4(host: Substring, port portText: Substring) -> SocketAddress? {
    guard let port = UInt16(portText) else { return nil }
    var ipv4 = sockaddr_in()
    ipv4.sin_family = sa_family_t(AF_INET)
    ipv4.sin_port = port.bigEndian
    guard inet_pton(AF_INET, String(host), &ipv4.sin_addr) == 1 else { return nil }
    var address = SocketAddress(storage: sockaddr_storage(), length: 0)
    address.store(ipv4)
    return address
  }

  private static func ipv6(host: Substring, port portText: Substring) -> SocketAddress? {
    guard let port = UInt16(portText) else { return nil }
    var ipv6 = sockaddr_in6()
    ipv6.sin6_family = sa_family_t(AF_INET6)
    ipv6.sin6_port = port.bigEndian
    var numeric = host
    if let percent = host.firstIndex(of: "%") {
      // A link-local address needs its interface: fe80::1%veth0.
      let scope = if_nametoindex(String(host[host.index(after: percent)...]))
      guard scope != 0 else { return nil }
      ipv6.sin6_scope_id = scope
      numeric = host[..<percent]
    }
    guard inet_pton(AF_INET6, String(numeric), &ipv6.sin6_addr) == 1 else { return nil }
    var address = SocketAddress(storage: sockaddr_storage(), length: 0)
    address.store(ipv6)
    return address
  }

  private mutating func store<Address>(_ address: Address) {
    withUnsafeMutableBytes(of: &storage) { raw in
      withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
    }
    length = socklen_t(MemoryLayout<Address>.size)
  }
}
