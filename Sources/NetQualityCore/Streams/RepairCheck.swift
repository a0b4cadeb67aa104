/// Recognises an RFC 4588 retransmission stream without SDP (WebRTC signals out of band): its
/// packets repeat RTP timestamps another stream of the same flow already sent.
///
/// Each of a new stream's first `packetsToDecide` packets is compared with its siblings (other
/// streams of the same source and destination). A packet whose timestamp is at most
/// `lookBackSeconds` behind a sibling's highest timestamp (and not ahead of it) matches that
/// sibling; a packet ahead of a sibling's highest by at most the same window proves nothing
/// (a repair of frames an outage took before the capture point saw any of them, sent before the
/// media's next new frame); the first packet that matches none, or another sibling, makes the
/// stream media for good. Independent streams start at random timestamps (RFC 3550 section 5.1), so a chance
/// match has a probability of about 5 s × 90 kHz / 2^32 ≈ 1e-4 for the first packet. A stream that
/// matched every packet is a retransmission if at least one packet was strictly behind (a
/// repair of an older packet); one that only ever kept pace is media (e.g. a simulcast layer
/// sending the same frames as its sibling). While deciding, a matching stream already counts
/// as a retransmission, so a short burst of repairs never reaches the peer's jitter.
struct RepairCheck {
  /// Packets examined before the role is final.
  static let packetsToDecide: UInt8 = 8
  /// How far back a repaired packet may be. Senders keep a short history to retransmit from:
  /// libwebrtc's RtpPacketHistory at least 1 s (`kMinPacketDurationMs`, 3 RTTs when longer),
  /// aiortc the last 128 packets (`RTP_HISTORY_SIZE`, 1–4 s of video). 5 s covers both and
  /// halves the chance match of an unrelated stream.
  static let lookBackSeconds = 5.0
  /// The clock assumed for a sibling whose rate is not known yet: RFC 3551 video's 90 kHz
  /// (the widest window, so no repair of an unknown-rate stream is missed).
  static let defaultClockHz = 90_000.0

  /// Packets compared so far; `packetsToDecide` or more when the role is final.
  var packetsChecked: UInt8 = 0
  /// The stream it repairs (an index into the analyser's streams), -1 for none.
  var repairedIndex: Int32 = -1
  /// A packet repeated a timestamp strictly older than its sibling's newest.
  var sawOlderTimestamp = false
  /// The SSRC of the stream it repairs (valid while `repairedIndex` is not -1).
  var repairedSSRC: UInt32 = 0

  var isDecided: Bool { packetsChecked >= Self.packetsToDecide }

  /// How far `timestamp` is behind `highest`, in RTP units, with wrap-around (RFC 3550 section
  /// 5.1: timestamps are modulo 2^32); negative when it is ahead.
  static func lag(of timestamp: UInt32, behind highest: UInt32) -> Int64 {
    Int64(Int32(bitPattern: highest &- timestamp))
  }
}
