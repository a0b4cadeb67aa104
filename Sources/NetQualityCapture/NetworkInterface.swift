import CPcap
import NetQualityCore

/// An interface libpcap can capture on, with its state and addresses.
public struct NetworkInterface: Sendable, Equatable {
  public var name: String
  public var isUp: Bool
  public var isRunning: Bool
  public var isLoopback: Bool
  public var addresses: [IPAddress]

  /// Every capturable interface (pcap_findalldevs).
  public static func all() throws(CaptureError) -> [NetworkInterface] {
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    var list: UnsafeMutablePointer<pcap_if_t>?
    guard pcap_findalldevs(&list, &errorBuffer) == 0 else {
      throw .cannotCapture(interface: "(any)", reason: LiveCapture.text(errorBuffer))
    }
    defer { pcap_freealldevs(list) }
    var result: [NetworkInterface] = []
    var current = list
    while let device = current {
      let flags = device.pointee.flags
      var addresses: [IPAddress] = []
      var address = device.pointee.addresses
      while let entry = address {
        if let socketAddress = entry.pointee.addr, let parsed = Self.address(socketAddress) {
          addresses.append(parsed)
        }
        address = entry.pointee.next
      }
      result.append(
        NetworkInterface(
          name: String(cString: device.pointee.name),
          isUp: flags & UInt32(PCAP_IF_UP) != 0,
          isRunning: flags & UInt32(PCAP_IF_RUNNING) != 0,
          isLoopback: flags & UInt32(PCAP_IF_LOOPBACK) != 0,
          addresses: addresses))
      current = device.pointee.next
    }
    return result
  }

  /// Whether `netquality run` captures on it by default: up, not loopback, and with an address
  /// (which leaves out libpcap's pseudo-devices such as "any", "nflog" or "dbus-system").
  public var isDefaultCapture: Bool { isUp && !isLoopback && !addresses.isEmpty }

  static func address(_ socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
    switch Int32(socketAddress.pointee.sa_family) {
    case AF_INET:
      return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
        IPAddress(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
      }
    case AF_INET6:
      return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
        withUnsafeBytes(of: pointer.pointee.sin6_addr) { bytes in
          IPAddress(high: bytes.uint64BigEndian(at: 0), low: bytes.uint64BigEndian(at: 8))
        }
      }
    default:
      return nil
    }
  }
}
