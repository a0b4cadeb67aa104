/// Where a stream's RTP clock rate came from.
public enum ClockRateSource: String, Sendable, Codable {
  /// RFC 3551 section 6 static payload type table.
  case `static`
  /// An `a=rtpmap` line in SDP seen in the capture.
  case sdp
  /// Estimated from timestamp steps against arrival times, snapped to a common rate.
  case inferred
  /// Not known: no jitter is reported rather than a wrong one.
  case unknown
}

/// RTP clock rates of the static payload types, RFC 3551 section 6, tables 4 and 5.
public enum StaticPayloadTypes {
  /// Clock rate in Hz for a static payload type, nil when unassigned or dynamic.
  @inline(__always)
  public static func clockRateHz(_ payloadType: UInt8) -> Int? {
    switch payloadType {
    // G.722 (9) is 8000 although it samples at 16 kHz: RFC 3551 section 4.5.2 keeps the
    // historical error.
    case 0, 3, 4, 5, 7, 8, 9, 12, 13, 15, 18: 8000
    case 6: 16000
    case 10, 11: 44100
    case 14, 25, 26, 28, 31, 32, 33, 34: 90000
    case 16: 11025
    case 17: 22050
    case 19: 8000  // reserved, once comfort noise; Wireshark uses 8000
    default: nil
    }
  }

  /// Names Wireshark shows for the static payload types (RFC 3551 section 6).
  public static func name(_ payloadType: UInt8) -> String? {
    switch payloadType {
    case 0: "PCMU"
    case 3: "GSM"
    case 4: "G723"
    case 5, 6, 16, 17: "DVI4"
    case 7: "LPC"
    case 8: "PCMA"
    case 9: "G722"
    case 10, 11: "L16"
    case 12: "QCELP"
    case 13, 19: "CN"
    case 14: "MPA"
    case 15: "G728"
    case 18: "G729"
    case 25: "CelB"
    case 26: "JPEG"
    case 28: "nv"
    case 31: "H261"
    case 32: "MPV"
    case 33: "MP2T"
    case 34: "H263"
    default: nil
    }
  }

  /// Comfort noise (RFC 3389; 19 is its old number): its transit time says little about the
  /// network, and the packet after it follows a silence.
  @inline(__always)
  public static func isComfortNoise(_ payloadType: UInt8) -> Bool {
    payloadType == 13 || payloadType == 19
  }
}
