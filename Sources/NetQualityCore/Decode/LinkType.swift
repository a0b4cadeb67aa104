/// The link-layer header types the decoder understands, by their libpcap `DLT_`/`LINKTYPE_`
/// numbers (https://www.tcpdump.org/linktypes.html).
public enum LinkType: Sendable, Equatable {
  /// DLT_NULL (0): BSD loopback, a 4-byte address family in the capturing host's byte order.
  case null
  /// DLT_EN10MB (1): Ethernet II, with any number of 802.1Q/802.1ad tags.
  case ethernet
  /// DLT_RAW (12, 14 on OpenBSD; LINKTYPE_RAW 101): a bare IPv4 or IPv6 packet.
  case raw
  /// DLT_LOOP (108): like DLT_NULL but the family is in network byte order.
  case loop
  /// DLT_LINUX_SLL (113): Linux cooked capture v1, 16-byte header.
  case linuxCooked
  /// DLT_LINUX_SLL2 (276): Linux cooked capture v2, 20-byte header.
  case linuxCookedV2
  /// LINKTYPE_IPV4 (228).
  case ipv4
  /// LINKTYPE_IPV6 (229).
  case ipv6

  /// Maps a libpcap datalink number; nil for link types the decoder does not support.
  public init?(dataLinkType: Int32) {
    switch dataLinkType {
    case 0: self = .null
    case 1: self = .ethernet
    case 12, 14, 101: self = .raw
    case 108: self = .loop
    case 113: self = .linuxCooked
    case 276: self = .linuxCookedV2
    case 228: self = .ipv4
    case 229: self = .ipv6
    default: return nil
    }
  }

  public var name: String {
    switch self {
    case .null: "NULL/loopback"
    case .ethernet: "Ethernet"
    case .raw: "raw IP"
    case .loop: "OpenBSD loopback"
    case .linuxCooked: "Linux cooked (SLL)"
    case .linuxCookedV2: "Linux cooked v2 (SLL2)"
    case .ipv4: "raw IPv4"
    case .ipv6: "raw IPv6"
    }
  }
}
