/// What a UDP payload is, by the first-byte demultiplexing of RFC 7983 section 7 (updated by
/// RFC 9443), plus the RTP/RTCP split of RFC 5761 section 4.
public enum PayloadKind: Sendable, Equatable {
  case stun
  case zrtp
  case dtls
  case turnChannelData
  case rtp
  case rtcp
  case unknown

  @inline(__always)
  public static func classify(_ payload: UnsafeRawBufferPointer) -> PayloadKind {
    guard payload.count >= 2 else { return .unknown }
    switch payload.byte(at: 0) {
    case 0...3: return .stun
    case 16...19: return .zrtp
    case 20...63: return .dtls
    case 64...79: return .turnChannelData
    case 128...191:
      // RFC 5761 section 4: a second octet of 192..223 is an RTCP packet type (SR 200 ... XR 207
      // and the reserved neighbours); RTP payload types 64..95 are avoided for exactly this.
      return (192...223).contains(payload.byte(at: 1)) ? .rtcp : .rtp
    default: return .unknown
    }
  }
}
