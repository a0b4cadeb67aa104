/// Errors a user can hit when opening or reading a capture, each one line that says what to do.
public enum CaptureError: Error, Equatable, CustomStringConvertible {
  /// libpcap could not open the file (missing, unreadable, not a capture).
  case cannotOpen(path: String, reason: String)
  /// The capture's link-layer type is not one the decoder knows.
  case unsupportedLinkType(path: String, dataLinkType: Int32, name: String)
  /// No interface of that name; `available` lists the ones there are.
  case noSuchInterface(interface: String, available: [String])
  /// Capturing needs root or CAP_NET_RAW and CAP_NET_ADMIN.
  case permissionDenied(interface: String)
  case cannotCapture(interface: String, reason: String)
  case badFilter(filter: String, reason: String)
  /// A capture that was running stopped: the interface went down or was removed.
  case interfaceGone(interface: String, reason: String)
  /// More capture interfaces than the engine tells apart.
  case tooManyInterfaces(count: Int, limit: Int)

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason):
      return "cannot read \(path): \(reason)"
    case .unsupportedLinkType(let path, let type, let name):
      return
        "cannot analyse \(path): link type \(type) (\(name)) is not supported; supported are "
        + "Ethernet (with VLAN tags), Linux cooked SLL/SLL2, NULL/loopback and raw IPv4/IPv6"
    case .noSuchInterface(let interface, let available):
      return "cannot capture on \(interface): no such device; interfaces are: "
        + (available.isEmpty ? "(none found)" : available.joined(separator: ", "))
    case .permissionDenied(let interface):
      return "no permission to capture on \(interface): run as root, or give the binary "
        + "CAP_NET_RAW and CAP_NET_ADMIN (setcap cap_net_raw,cap_net_admin=eip netquality)"
    case .cannotCapture(let interface, let reason):
      return "cannot capture on \(interface): \(reason)"
    case .badFilter(let filter, let reason):
      return "bad capture filter '\(filter)': \(reason)"
    case .interfaceGone(let interface, let reason):
      return "capture on \(interface) stopped: \(reason)"
    case .tooManyInterfaces(let count, let limit):
      return "cannot capture on \(count) interfaces: at most \(limit) (each takes a thread and a "
        + "capture ring); list those that carry media in 'interfaces', or capture on 'any'"
    }
  }
}
