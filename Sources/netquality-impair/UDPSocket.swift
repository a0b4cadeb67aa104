import Glibc

/// A failure the user can act on: one line, no stack trace.
struct RelayError: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }

  /// `what: strerror(errno)`, read at once so nothing can overwrite errno first.
  static func system(_ what: String) -> RelayError {
    RelayError("\(what): \(String(cString: strerror(errno)))")
  }
}

/// A non-blocking UDP socket; closed when the last reference goes.
final class UDPSocket {
  let descriptor: Int32

  /// How much a socket may hold while the relay is busy elsewhere (writing stats, or descheduled
  /// under load): about 3 s of 50 packet/s media at 1,500 bytes. The kernel caps it at
  /// net.core.rmem_max unless it is raised.
  private static let receiveBufferBytes: Int32 = 1 << 20

  init(family: Int32) throws(RelayError) {
    let kind =
      Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
      | Int32(SOCK_CLOEXEC.rawValue)
    descriptor = socket(family, kind, 0)
    guard descriptor >= 0 else { throw .system("cannot open a UDP socket") }
    var bytes = Self.receiveBufferBytes
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
  }

  deinit {
    close(descriptor)
  }

  func bind(to address: SocketAddress) throws(RelayError) {
    let status = address.withSockaddr { Glibc.bind(descriptor, $0, $1) }
    guard status == 0 else { throw .system("cannot bind \(address)") }
  }

  /// The address the kernel bound (the real port when 0 was asked for).
  func localAddress() throws(RelayError) -> SocketAddress {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let status = withUnsafeMutablePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard status == 0 else { throw .system("cannot read the bound address") }
    return SocketAddress(storage: storage, length: length)
  }

  /// The next datagram into `buffer`: its full length (larger than the buffer when it was
  /// truncated, thanks to MSG_TRUNC) and its source; nil when none is waiting.
  func receive(into buffer: UnsafeMutableRawBufferPointer) -> (
    length: Int, source: SocketAddress
  )? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    while true {
      let received = withUnsafeMutablePointer(to: &storage) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          recvfrom(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), $0, &length)
        }
      }
      if received >= 0 {
        return (received, SocketAddress(storage: storage, length: length))
      }
      // EINTR: a signal between the readiness check and here; the datagram is still there.
      guard errno == EINTR else { return nil }
    }
  }

  /// Sends `bytes` to `destination`; false when the kernel refused it (buffer full, no route).
  func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
    while true {
      let sent = destination.withSockaddr {
        sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, $1)
      }
      if sent >= 0 { return true }
      guard errno == EINTR else { return false }
    }
  }
}
