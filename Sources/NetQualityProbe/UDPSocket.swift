import Glibc
import NetQualityCore

/// Where a datagram's receive time came from.
public enum ReceiveTimestampSource: String, Sendable, Hashable {
  /// The kernel's stamp as the datagram arrived (`SO_TIMESTAMPNS`): free of the wait between
  /// arrival and the application reading it.
  case kernel
  /// `clock_gettime(CLOCK_REALTIME)` after `recvmsg` returned: later than the arrival by the
  /// scheduling delay.
  case userSpace = "user-space"
}

/// One datagram read by `UDPSocket.receive(into:)`; its bytes are the first `length` of the
/// caller's buffer.
public struct ReceivedDatagram: Sendable, Hashable {
  public var length: Int
  public var source: Endpoint
  /// Wall-clock (UTC) receive time.
  public var receiveTime: CaptureTime
  public var timestampSource: ReceiveTimestampSource
  /// The IPv4 TTL or IPv6 Hop Limit it arrived with, nil when the kernel did not say.
  public var ttl: UInt8?
  /// The datagram was longer than the buffer, and its tail was cut (`MSG_TRUNC`);
  /// `length` is then the datagram's full length, not what the buffer holds.
  public var isTruncated: Bool
  /// The address it was sent to (`IP_PKTINFO`, `IPV6_PKTINFO`), nil when the kernel did not
  /// say: on a socket bound to 0.0.0.0 or ::, which of the host's addresses was probed.
  public var destination: IPAddress? = nil
}

/// A failed socket call: one line naming the call, the address and the system's reason.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
  public var operation: String
  public var endpoint: Endpoint?
  public var code: Int32

  public var description: String {
    let target = endpoint.map { " \($0)" } ?? ""
    return "cannot \(operation)\(target): \(String(cString: strerror(code)))"
  }
}

/// A non-blocking UDP socket over POSIX calls, for STAMP senders and reflectors alike.
///
/// - Bound to an IPv4 address, it is an IPv4 socket; bound to an IPv6 address it is an IPv6
///   socket that also takes IPv4 (as IPv4-mapped addresses, which `IPAddress` stores natively),
///   so `[::]:862` serves both families.
/// - Receives with `recvmsg`, asking the kernel for a receive timestamp (`SO_TIMESTAMPNS`) and
///   the TTL / Hop Limit (`IP_RECVTTL`, `IPV6_RECVHOPLIMIT`); each datagram says whether its
///   time came from the kernel or from user space.
/// - Sends with `sendto`, with an optional traffic class (DSCP and ECN: `IP_TOS` /
///   `IPV6_TCLASS`) set on the socket before the send when it changes.
/// - Receiving and sending allocate nothing: the message header, address and control buffers
///   are allocated once with the socket.
///
/// Not thread-safe: one thread uses a socket at a time. Closed on deinit.
public final class UDPSocket {
  public let descriptor: Int32
  /// The bound address (with the kernel's port when bound to port 0).
  public let localEndpoint: Endpoint
  /// Whether the kernel agreed to stamp receive times (else every datagram is stamped in user
  /// space).
  public let kernelTimestamps: Bool
  private let isIPv6: Bool
  private var trafficClass: UInt8 = 0

  private let header: UnsafeMutablePointer<msghdr>
  private let vector: UnsafeMutablePointer<iovec>
  private let sourceStorage: UnsafeMutablePointer<sockaddr_storage>
  private let control: UnsafeMutableRawBufferPointer
  /// The receive buffer asked for (the kernel doubles it for its bookkeeping, up to rmem_max).
  static let receiveBufferBytes: Int32 = 4 << 20
  /// Room for a timestamp, a TTL and a hop limit message, each a header plus at most 16 bytes.
  private static let controlBytes = 256

  /// A socket bound to `endpoint` (port 0 for one the kernel picks).
  public init(binding endpoint: Endpoint) throws(SocketError) {
    isIPv6 = !endpoint.address.isIPv4
    let family = isIPv6 ? AF_INET6 : AF_INET
    let descriptor = socket(
      family, Int32(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else {
      throw SocketError(operation: "open a UDP socket for", endpoint: endpoint, code: errno)
    }
    func fail(_ operation: String) -> SocketError {
      let error = SocketError(operation: operation, endpoint: endpoint, code: errno)
      close(descriptor)
      return error
    }
    if isIPv6 {
      // Dual stack: `::` takes IPv4 too (the default of net.ipv6.bindv6only is not relied on).
      guard Self.setOption(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0) else {
        throw fail("configure dual-stack on")
      }
    }
    let bound = Self.withSocketAddress(endpoint, isIPv6: isIPv6) { address, length in
      bind(descriptor, address, length)
    }
    guard bound == 0 else { throw fail("bind") }

    // A larger receive buffer than the default 208 KiB (256 STAMP packets with the kernel's
    // per-datagram overhead): the per-source rate limit acts after a packet is read, and a
    // flood from one source filling the buffer would drop everyone's. Capped by
    // net.core.rmem_max (4 MiB on Debian's defaults); a refusal leaves the default.
    _ = Self.setOption(descriptor, SOL_SOCKET, SO_RCVBUF, Self.receiveBufferBytes)
    kernelTimestamps = Self.setOption(descriptor, SOL_SOCKET, SO_TIMESTAMPNS, 1)
    // TTL of IPv4 datagrams, also those an IPv6 socket takes as IPv4-mapped (Linux honours
    // IP_RECVTTL on a dual-stack socket); failures leave the TTL unknown, nothing more.
    _ = Self.setOption(descriptor, Int32(IPPROTO_IP), IP_RECVTTL, 1)
    if isIPv6 { _ = Self.setOption(descriptor, Int32(IPPROTO_IPV6), IPV6_RECVHOPLIMIT, 1) }
    // The destination address of each datagram, so that a socket on all addresses answers
    // from the one that was probed (`send(_:to:from:)`).
    _ = Self.setOption(descriptor, Int32(IPPROTO_IP), IP_PKTINFO, 1)
    if isIPv6 { _ = Self.setOption(descriptor, Int32(IPPROTO_IPV6), IPV6_RECVPKTINFO, 1) }

    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let named = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0, let local = Self.endpoint(of: &storage) else {
      throw fail("read the bound address of")
    }
    self.descriptor = descriptor
    localEndpoint = local

    header = .allocate(capacity: 1)
    vector = .allocate(capacity: 1)
    sourceStorage = .allocate(capacity: 1)
    control = .allocate(byteCount: Self.controlBytes, alignment: MemoryLayout<Int>.alignment)
  }

  deinit {
    close(descriptor)
    header.deallocate()
    vector.deallocate()
    sourceStorage.deallocate()
    control.deallocate()
  }

  // MARK: Receive

  /// Reads one waiting datagram into `buffer`, or returns nil when none is waiting (the socket
  /// never blocks; see `waitUntilReadable`).
  public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError)
    -> ReceivedDatagram?
  {
    vector.pointee = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
    header.pointee = msghdr()
    header.pointee.msg_name = UnsafeMutableRawPointer(sourceStorage)
    header.pointee.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
    header.pointee.msg_iov = vector
    header.pointee.msg_iovlen = 1
    header.pointee.msg_control = control.baseAddress
    header.pointee.msg_controllen = control.count
    var count: Int
    repeat {
      count = recvmsg(descriptor, header, Int32(MSG_TRUNC))
    } while count < 0 && errno == EINTR
    guard count >= 0 else {
      if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
      throw SocketError(operation: "receive on", endpoint: localEndpoint, code: errno)
    }
    // A user-space stamp right away, in case the kernel gave none.
    let userSpaceTime = WallClock.now()
    guard let source = Self.endpoint(of: sourceStorage) else {
      // Not an IP source (cannot happen on an AF_INET/AF_INET6 socket): skip it.
      return nil
    }
    var datagram = ReceivedDatagram(
      length: count, source: source, receiveTime: userSpaceTime, timestampSource: .userSpace,
      ttl: nil, isTruncated: header.pointee.msg_flags & Int32(MSG_TRUNC) != 0)
    readControlMessages(into: &datagram)
    return datagram
  }

  /// Fills the kernel timestamp and TTL from the control messages of the last `recvmsg`. The
  /// `CMSG_*` macros do not reach Swift, so this walks them as `<sys/socket.h>` lays them out:
  /// each a `cmsghdr` then its data, every one aligned to `size_t`.
  private func readControlMessages(into datagram: inout ReceivedDatagram) {
    let total = min(Int(header.pointee.msg_controllen), control.count)
    let headerLength = Self.align(MemoryLayout<cmsghdr>.size)
    var offset = 0
    while offset + headerLength <= total {
      let message = control.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
      let length = Int(message.cmsg_len)
      guard length >= headerLength, offset + length <= total else { break }
      let data = offset + headerLength
      let dataLength = length - headerLength
      switch (message.cmsg_level, message.cmsg_type) {
      case (SOL_SOCKET, SCM_TIMESTAMPNS) where dataLength >= MemoryLayout<timespec>.size:
        let stamp = control.loadUnaligned(fromByteOffset: data, as: timespec.self)
        datagram.receiveTime = CaptureTime(
          seconds: Int64(stamp.tv_sec), nanoseconds: Int64(stamp.tv_nsec))
        datagram.timestampSource = .kernel
      case (Int32(IPPROTO_IP), IP_PKTINFO) where dataLength >= MemoryLayout<in_pktinfo>.size:
        let info = control.loadUnaligned(fromByteOffset: data, as: in_pktinfo.self)
        datagram.destination = IPAddress(ipv4: UInt32(bigEndian: info.ipi_addr.s_addr))
      case (Int32(IPPROTO_IPV6), IPV6_PKTINFO) where dataLength >= Self.in6PacketInfoBytes:
        // The address is the structure's first 16 bytes (RFC 3542 section 6.1).
        datagram.destination = IPAddress(
          high: UInt64(bigEndian: control.loadUnaligned(fromByteOffset: data, as: UInt64.self)),
          low: UInt64(bigEndian: control.loadUnaligned(fromByteOffset: data + 8, as: UInt64.self)))
      case (Int32(IPPROTO_IP), IP_TTL) where dataLength >= MemoryLayout<Int32>.size,
        (Int32(IPPROTO_IPV6), IPV6_HOPLIMIT) where dataLength >= MemoryLayout<Int32>.size:
        let value = control.loadUnaligned(fromByteOffset: data, as: Int32.self)
        datagram.ttl = UInt8(clamping: value)
      default:
        break
      }
      offset += Self.align(length)
    }
  }

  private static func align(_ length: Int) -> Int {
    let unit = MemoryLayout<Int>.size
    return (length + unit - 1) & ~(unit - 1)
  }

  /// Waits up to `timeoutMilliseconds` (-1: forever) for a datagram. False on timeout, and
  /// when a signal interrupts the wait, so a loop around it can notice a stop request.
  public func waitUntilReadable(timeoutMilliseconds: Int32) throws(SocketError) -> Bool {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let ready = poll(&request, 1, timeoutMilliseconds)
    if ready < 0 {
      if errno == EINTR { return false }
      throw SocketError(operation: "wait on", endpoint: localEndpoint, code: errno)
    }
    return ready > 0
  }

  // MARK: Send

  /// Sends `payload` to `destination`, first setting the traffic class (the whole former TOS
  /// / Traffic Class octet: DSCP << 2 | ECN) when one is given and differs from the last.
  /// Returns false when the socket's send buffer is full (the datagram is not sent).
  @discardableResult
  public func send(
    _ payload: UnsafeRawBufferPointer, to destination: Endpoint, trafficClass: UInt8? = nil
  ) throws(SocketError) -> Bool {
    if let trafficClass, trafficClass != self.trafficClass {
      try setTrafficClass(trafficClass)
    }
    if !isIPv6 && !destination.address.isIPv4 {
      throw SocketError(
        operation: "send from IPv4 socket to", endpoint: destination, code: EAFNOSUPPORT)
    }
    var sent: Int
    repeat {
      sent = Self.withSocketAddress(destination, isIPv6: isIPv6) { address, length in
        sendto(descriptor, payload.baseAddress, payload.count, 0, address, length)
      }
    } while sent < 0 && errno == EINTR
    guard sent >= 0 else {
      if errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS { return false }
      throw SocketError(operation: "send to", endpoint: destination, code: errno)
    }
    return true
  }

  /// Sends `payload` to `destination` from the local address `source` (`IP_PKTINFO` /
  /// `IPV6_PKTINFO` ancillary data, RFC 3542 section 6): a socket bound to all addresses then
  /// answers from the address a request was sent to, not the one the routing table prefers (a
  /// sender that probed 127.0.3.7 would take an answer from 127.0.0.1 for someone else's).
  /// Without `source`, or when it is the unspecified address, this is `send(_:to:)`.
  /// Returns false when the socket's send buffer is full.
  @discardableResult
  public func send(
    _ payload: UnsafeRawBufferPointer, to destination: Endpoint, from source: IPAddress?
  ) throws(SocketError) -> Bool {
    guard let source, !Self.isUnspecified(source) else {
      return try send(payload, to: destination)
    }
    if !isIPv6 && (!destination.address.isIPv4 || !source.isIPv4) {
      throw SocketError(
        operation: "send from IPv4 socket to", endpoint: destination, code: EAFNOSUPPORT)
    }
    // An IPv4 source on an IPv6 socket (an IPv4-mapped request) goes as IPv4's own option.
    let useIPv4 = source.isIPv4
    var sent: Int
    repeat {
      sent = Self.withSocketAddress(destination, isIPv6: isIPv6) { address, length in
        vector.pointee = iovec(
          iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count)
        header.pointee = msghdr()
        header.pointee.msg_name = UnsafeMutableRawPointer(mutating: address)
        header.pointee.msg_namelen = length
        header.pointee.msg_iov = vector
        header.pointee.msg_iovlen = 1
        control.initializeMemory(as: UInt8.self, repeating: 0)
        let headerLength = Self.align(MemoryLayout<cmsghdr>.size)
        var message = cmsghdr()
        if useIPv4 {
          var info = in_pktinfo()
          info.ipi_spec_dst.s_addr = (source.ipv4Value ?? 0).bigEndian
          message.cmsg_level = Int32(IPPROTO_IP)
          message.cmsg_type = IP_PKTINFO
          message.cmsg_len = headerLength + MemoryLayout<in_pktinfo>.size
          control.storeBytes(of: message, toByteOffset: 0, as: cmsghdr.self)
          control.storeBytes(of: info, toByteOffset: headerLength, as: in_pktinfo.self)
        } else {
          message.cmsg_level = Int32(IPPROTO_IPV6)
          message.cmsg_type = IPV6_PKTINFO
          message.cmsg_len = headerLength + Self.in6PacketInfoBytes
          control.storeBytes(of: message, toByteOffset: 0, as: cmsghdr.self)
          // The interface index (after the address) stays 0: any.
          control.storeBytes(
            of: source.high.bigEndian, toByteOffset: headerLength, as: UInt64.self)
          control.storeBytes(
            of: source.low.bigEndian, toByteOffset: headerLength + 8, as: UInt64.self)
        }
        header.pointee.msg_control = control.baseAddress
        header.pointee.msg_controllen = Int(message.cmsg_len)
        return sendmsg(descriptor, header, 0)
      }
    } while sent < 0 && errno == EINTR
    guard sent >= 0 else {
      if errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS { return false }
      throw SocketError(operation: "send to", endpoint: destination, code: errno)
    }
    return true
  }

  /// `struct in6_pktinfo` (RFC 3542 section 6.1): a 16-byte address and a 4-byte interface
  /// index; glibc declares it only for _GNU_SOURCE, which Swift's Glibc module is not built with.
  private static let in6PacketInfoBytes = 20

  private static func isUnspecified(_ address: IPAddress) -> Bool {
    address == IPAddress(ipv4: 0, 0, 0, 0) || address == IPAddress(high: 0, low: 0)
  }

  /// Sets the traffic class of everything sent from now on: `IP_TOS` on IPv4 and, on an IPv6
  /// socket, `IPV6_TCLASS` and `IP_TOS` (the latter for IPv4-mapped destinations).
  public func setTrafficClass(_ value: UInt8) throws(SocketError) {
    let option = Int32(value)
    if isIPv6 {
      guard Self.setOption(descriptor, Int32(IPPROTO_IPV6), IPV6_TCLASS, option) else {
        throw SocketError(
          operation: "set the traffic class of", endpoint: localEndpoint, code: errno)
      }
      _ = Self.setOption(descriptor, Int32(IPPROTO_IP), IP_TOS, option)
    } else {
      guard Self.setOption(descriptor, Int32(IPPROTO_IP), IP_TOS, option) else {
        throw SocketError(operation: "set the TOS of", endpoint: localEndpoint, code: errno)
      }
    }
    trafficClass = value
  }

  // MARK: Addresses

  private static func setOption(_ descriptor: Int32, _ level: Int32, _ name: Int32, _ value: Int32)
    -> Bool
  {
    var value = value
    return setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
  }

  /// Calls `body` with `endpoint` as a `sockaddr` of the socket's family (an IPv4 endpoint on
  /// an IPv6 socket as an IPv4-mapped address). Built on the stack: no allocation.
  private static func withSocketAddress<Result>(
    _ endpoint: Endpoint, isIPv6: Bool,
    _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
  ) -> Result {
    if isIPv6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = endpoint.port.bigEndian
      withUnsafeMutableBytes(of: &address.sin6_addr) { bytes in
        bytes.storeBytes(of: endpoint.address.high.bigEndian, toByteOffset: 0, as: UInt64.self)
        bytes.storeBytes(of: endpoint.address.low.bigEndian, toByteOffset: 8, as: UInt64.self)
      }
      return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = endpoint.port.bigEndian
    address.sin_addr.s_addr = (endpoint.address.ipv4Value ?? 0).bigEndian
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// The endpoint in a `sockaddr_storage` filled by the kernel, nil for a non-IP family.
  private static func endpoint(of storage: UnsafePointer<sockaddr_storage>) -> Endpoint? {
    switch Int32(storage.pointee.ss_family) {
    case AF_INET:
      return UnsafeRawPointer(storage).withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
        Endpoint(
          address: IPAddress(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr)),
          port: UInt16(bigEndian: $0.pointee.sin_port))
      }
    case AF_INET6:
      return UnsafeRawPointer(storage).withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
        let bytes = UnsafeRawPointer($0).advanced(
          by: MemoryLayout<sockaddr_in6>.offset(
            of: \sockaddr_in6.sin6_addr) ?? 8)
        return Endpoint(
          address: IPAddress(
            high: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
            low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))),
          port: UInt16(bigEndian: $0.pointee.sin6_port))
      }
    default:
      return nil
    }
  }

  private static func endpoint(of storage: inout sockaddr_storage) -> Endpoint? {
    withUnsafePointer(to: &storage) { endpoint(of: $0) }
  }
}
