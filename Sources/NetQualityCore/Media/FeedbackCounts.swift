/// RTCP feedback one address sent another: what a receiver asked of a sender (RFC 4585
/// section 6, RFC 5104 section 4.3, draft-alvestrand-rmcat-remb, draft-holmer-rmcat-transport-
/// wide-cc-extensions section 3.1). Counted per direction of an address pair, so it is there
/// for encrypted SRTCP too, whose only readable part is its first packet's header (RFC 3711
/// section 3.4: the first 8 octets are in the clear): a datagram whose first packet is
/// feedback counts that message by its type and format, without the media SSRC or the FCI.
public struct FeedbackCounts: Sendable, Equatable {
  /// Generic NACK messages (RTPFB FMT 1): webrtc-stats `nackCount` counts these.
  public var nackMessages: Int64 = 0
  /// Packets they asked for (1 + the BLP bits of each FCI entry, RFC 4585 section 6.2.1);
  /// plain RTCP only.
  public var nackedPackets: Int64 = 0
  /// Picture Loss Indications (PSFB FMT 1, RFC 4585 section 6.3.1): webrtc-stats `pliCount`.
  public var pictureLossIndications: Int64 = 0
  /// Full Intra Requests (PSFB FMT 4, RFC 5104 section 4.3.1): webrtc-stats `firCount`.
  public var fullIntraRequests: Int64 = 0
  /// Receiver Estimated Maximum Bitrate messages (PSFB FMT 15 with "REMB"), and the last
  /// estimate, bits per second (plain RTCP only).
  public var estimateMessages: Int64 = 0
  public var lastEstimateBitsPerSecond: Double?
  /// Transport-wide congestion control feedback (RTPFB FMT 15).
  public var transportFeedbackMessages: Int64 = 0
  /// Of the messages above, those read from an encrypted datagram's first header only.
  public var encryptedMessages: Int64 = 0
  /// When the last feedback arrived (for forgetting).
  public var lastTime = CaptureTime(nanosecondsSinceEpoch: 0)

  public init() {}

  public var isEmpty: Bool {
    nackMessages == 0 && pictureLossIndications == 0 && fullIntraRequests == 0
      && estimateMessages == 0 && transportFeedbackMessages == 0
  }

  /// A parsed feedback message.
  mutating func record(_ message: RTCPFeedback, at time: CaptureTime) {
    lastTime = time
    switch message.kind {
    case .nack(let packets):
      nackMessages += 1
      nackedPackets += Int64(packets)
    case .pli: pictureLossIndications += 1
    case .fir: fullIntraRequests += 1
    case .remb(let bitsPerSecond):
      estimateMessages += 1
      lastEstimateBitsPerSecond = bitsPerSecond
    case .transportWide: transportFeedbackMessages += 1
    case .other: break
    }
  }

  /// The first packet of an SRTCP datagram: its packet type and FMT are all there is.
  mutating func recordEncrypted(type: UInt8, format: UInt8, at time: CaptureTime) {
    let before = self
    lastTime = time
    switch (type, format) {
    case (RTCPCompound.transportFeedback, 1): nackMessages += 1
    case (RTCPCompound.transportFeedback, 15): transportFeedbackMessages += 1
    case (RTCPCompound.payloadFeedback, 1): pictureLossIndications += 1
    case (RTCPCompound.payloadFeedback, 4): fullIntraRequests += 1
    // PSFB FMT 15 is application-layer feedback; REMB is the one WebRTC sends.
    case (RTCPCompound.payloadFeedback, 15): estimateMessages += 1
    default: return
    }
    if before != self { encryptedMessages += 1 }
  }

  /// What happened between `earlier` and this (a tick's window).
  public func since(_ earlier: FeedbackCounts) -> FeedbackCounts {
    var window = self
    window.nackMessages -= earlier.nackMessages
    window.nackedPackets -= earlier.nackedPackets
    window.pictureLossIndications -= earlier.pictureLossIndications
    window.fullIntraRequests -= earlier.fullIntraRequests
    window.estimateMessages -= earlier.estimateMessages
    window.transportFeedbackMessages -= earlier.transportFeedbackMessages
    window.encryptedMessages -= earlier.encryptedMessages
    return window
  }

  /// Adds another pair's counts (a peer's over its addresses).
  public mutating func add(_ other: FeedbackCounts) {
    nackMessages += other.nackMessages
    nackedPackets += other.nackedPackets
    pictureLossIndications += other.pictureLossIndications
    fullIntraRequests += other.fullIntraRequests
    estimateMessages += other.estimateMessages
    lastEstimateBitsPerSecond = other.lastEstimateBitsPerSecond ?? lastEstimateBitsPerSecond
    transportFeedbackMessages += other.transportFeedbackMessages
    encryptedMessages += other.encryptedMessages
    lastTime = max(lastTime, other.lastTime)
  }
}

/// The two addresses of a datagram, in its direction.
public struct AddressPair: Hashable, Sendable {
  public var source: IPAddress
  public var destination: IPAddress

  public init(source: IPAddress, destination: IPAddress) {
    self.source = source
    self.destination = destination
  }
}
