/// A decoded UDP datagram: its endpoints and where its payload lies in the frame (no copy).
public struct UDPDatagram: Sendable, Equatable {
  public var source: Endpoint
  public var destination: Endpoint
  /// Offset of the UDP payload from the start of the captured frame.
  public var payloadOffset: Int
  /// Payload length in bytes, from the UDP length field (validated against the IP length).
  public var payloadLength: Int
  /// How much of the payload the capture holds (less than `payloadLength` under a snap length).
  public var capturedPayloadLength: Int

  public var isTruncated: Bool { capturedPayloadLength < payloadLength }
}

/// What the frame decoder made of one captured frame.
public enum FrameDecodeResult: Sendable, Equatable {
  case udp(UDPDatagram)
  /// IP, but not UDP (TCP, ICMP, ESP, ...).
  case otherTransport
  /// Not IP at all (ARP, LLDP, an unknown link type, ...).
  case notIP
  /// An IPv4 fragment or an IPv6 packet with a fragment header; not reassembled.
  case fragment
  /// The capture's snap length cut the frame before the headers or payload the decoder needed.
  case truncated
  /// Headers whose fields contradict each other or the frame length.
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
}
