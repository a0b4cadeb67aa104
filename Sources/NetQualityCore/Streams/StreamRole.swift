/// What a stream carries: media the listener hears or sees, or packets that repair it.
///
/// Repair streams do not describe the network the way media does: an RFC 4588 retransmission
/// carries the RTP timestamp of the packet it repairs, so its transit (and the RFC 3550 jitter
/// of its stream) grows with every retransmission's age, and its loss is the loss of repairs.
/// A peer's jitter and loss are therefore its media streams' only; repair streams are reported
/// as their own figures (retransmitted and FEC packets).
public enum StreamRole: String, Sendable, Codable {
  case media
  /// RFC 4588 retransmissions (`rtx` in SDP, or recognised by behaviour: see `RepairCheck`).
  case retransmission
  /// Forward error correction on its own stream: RFC 5109 ULPFEC or RFC 8627 FlexFEC by SDP.
  case fec

  /// The role SDP gives a payload format by its encoding name (RFC 4588 section 8.6 `rtx`,
  /// RFC 5109 section 14.1 `ulpfec`, RFC 8627 section 5.1 `flexfec`, and libwebrtc's
  /// `flexfec-03`). RFC 2198 `red` carries the primary encoding: media.
  public static func signalled(encodingName: String) -> StreamRole {
    switch encodingName.lowercased() {
    case "rtx": .retransmission
    case "ulpfec", "flexfec", "flexfec-03": .fec
    default: .media
    }
  }
}
