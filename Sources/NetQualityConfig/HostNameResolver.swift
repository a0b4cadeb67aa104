import NetQualityCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Host names in `HOST:PORT` addresses (`listen`, probe targets, the reflector's `listen`),
/// resolved once, where the configuration is loaded, so `check-config` reports a name that
/// does not resolve with its line and the running agent never resolves again.
///
/// A name that resolves to several addresses gives one: the first IPv4 address, else the first
/// address, as Go's `net.Listen` picks its address (`first(isIPv4)` in net/dial.go), so
/// `localhost:9470` listens where node_exporter's `--web.listen-address localhost:9470` does.
public enum HostNameResolver {
  /// Resolves a host name to its addresses in the resolver's order, or says why it cannot.
  public typealias Resolve = @Sendable (String) -> Result<[IPAddress], Failure>

  public struct Failure: Error, Equatable, Sendable {
    public var message: String

    public init(_ message: String) { self.message = message }
  }

  /// The resolver in effect: getaddrinfo(3) unless a test sets another for its task.
  @TaskLocal public static var resolve: Resolve = systemResolve

  /// The address `name` listens or sends on: the first IPv4 address, else the first.
  public static func address(of name: String) -> Result<IPAddress, Failure> {
    resolve(name).flatMap { addresses in
      guard let address = addresses.first(where: \.isIPv4) ?? addresses.first else {
        return .failure(Failure("'\(name)' resolves to no address"))
      }
      return .success(address)
    }
  }

  /// Whether `text` is a host name as RFC 1123 section 2.1 writes one: dot-separated labels of
  /// letters, digits and hyphens, each 1 to 63 characters and not starting or ending with a
  /// hyphen, 253 characters at most, the last not all digits (section 2.1: "the highest-level
  /// component label will be alphabetic", so `999.1.1.1` is a wrong address, not a name).
  /// Anything else is refused before the resolver sees it.
  public static func isHostName(_ text: String) -> Bool {
    let name = text.hasSuffix(".") ? String(text.dropLast()) : text
    guard !name.isEmpty, name.count <= 253 else { return false }
    let labels = name.split(separator: ".", omittingEmptySubsequences: false)
    guard let last = labels.last, !last.allSatisfy(\.isNumber) else { return false }
    return labels.allSatisfy { label in
      (1...63).contains(label.count) && label.first != "-" && label.last != "-"
        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
  }

  /// getaddrinfo(3) for TCP/UDP addresses of either family, in its order.
  @Sendable public static func systemResolve(_ name: String) -> Result<[IPAddress], Failure> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(name, nil, &hints, &list)
    guard status == 0 else {
      let reason = gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
      return .failure(Failure("cannot resolve '\(name)': \(reason)"))
    }
    defer { freeaddrinfo(list) }
    var addresses: [IPAddress] = []
    var entry = list
    while let current = entry?.pointee {
      if let address = current.ai_addr.flatMap(Self.ipAddress), !addresses.contains(address) {
        addresses.append(address)
      }
      entry = current.ai_next
    }
    return .success(addresses)
  }

  /// The address of a `sockaddr_in` or `sockaddr_in6`.
  static func ipAddress(_ socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    switch Int32(socketAddress.pointee.sa_family) {
    case AF_INET:
      var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
        $0.pointee.sin_addr
      }
      guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { return nil }
    case AF_INET6:
      var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
        $0.pointee.sin6_addr
      }
      guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
    default:
      return nil
    }
    return IPAddress(
      String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }
}
