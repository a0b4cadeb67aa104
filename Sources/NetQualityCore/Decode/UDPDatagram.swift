/// A decoded UDP datagram: its addresses, ports and where its payload lies in the frame (no
/// copy). Stored as plain words so the decoder fills it in place on the per-packet path. A TCP
/// segment (`FrameDecodeStatus.tcp`) fills the same fields: its ports and its payload.
public struct UDPDatagram: Sendable, Equatable {
  public var sourceAddress = IPAddress(high: 0, low: 0)
  public var destinationAddress = IPAddress(high: 0, low: 0)
  public var sourcePort: UInt16 = 0
  public var destinationPort: UInt16 = 0
  /// Offset of the UDP payload from the start of the captured frame.
  public var payloadOffset = 0
  /// Payload length in bytes, from the UDP length field (validated against the IP length).
  public var payloadLength = 0
  /// How much of the payload the capture holds (less than `payloadLength` under a snap length).
  public var capturedPayloadLength = 0

  public init() {}

  public var source: Endpoint { Endpoint(address: sourceAddress, port: sourcePort) }
  public var destination: Endpoint { Endpoint(address: destinationAddress, port: destinationPort) }
  public var isTruncated: Bool { capturedPayloadLength < payloadLength }
}

/// What the frame decoder made of one captured frame.
public enum FrameDecodeResult: Sendable, Equatable {
  case udp(UDPDatagram)
  /// A TCP segment (for SIP over TCP): its addresses, ports and payload, and its sequence
  /// number.
  case tcp(UDPDatagram, sequence: UInt32)
  /// IP, but neither UDP nor TCP (ICMP, ESP, ...), or TCP without a whole header.
  case otherTransport
  /// Not IP at all (ARP, LLDP, an unknown link type, ...).
  case notIP
  /// An IPv4 fragment or an IPv6 packet with a fragment header; not reassembled.
  case fragment
  /// The capture's snap length cut the frame before the headers the decoder needed.
  case truncated
  /// Headers whose fields contradict each other or the frame length.
  case malformed(MalformedReason)
}

/// The decoder's verdict without the datagram, for the in-place form of `FrameDecoder.decode`.
public enum FrameDecodeStatus: Sendable, Equatable {
  case udp
  case tcp(sequence: UInt32)
  case otherTransport
  case notIP
  case fragment
  case truncated
  case malformed(MalformedReason)
}

/// Why a frame was judged malformed; each kind is counted separately.
public enum MalformedReason: String, Sendable, CaseIterable {
  case linkHeader = "link_header"
  case ipHeader = "ip_header"
  case ipLength = "ip_length"
  case udpLength = "udp_length"
  case rtpHeader = "rtp_header"
  case rtcpLength = "rtcp_length"
  /// A feedback figure beyond what any path carries (`RTCPFeedback.maximumEstimateBitsPerSecond`).
  case rtcpFeedback = "rtcp_feedback"
}
