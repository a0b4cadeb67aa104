/// Errors a user can hit when opening or reading a capture, each one line that says what to do.
public enum CaptureError: Error, Equatable, CustomStringConvertible {
  /// libpcap could not open the file (missing, unreadable, not a capture).
  case cannotOpen(path: String, reason: String)
  /// The capture's link-layer type is not one the decoder knows.
  case unsupportedLinkType(path: String, dataLinkType: Int32, name: String)

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason):
      return "cannot read \(path): \(reason)"
    case .unsupportedLinkType(let path, let type, let name):
      return
        "cannot analyse \(path): link type \(type) (\(name)) is not supported; supported are "
        + "Ethernet (with VLAN tags), Linux cooked SLL/SLL2, NULL/loopback and raw IPv4/IPv6"
    }
  }
}
