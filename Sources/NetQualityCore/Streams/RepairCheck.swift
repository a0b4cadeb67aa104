/// Recognises an RFC 4588 retransmission stream without SDP (WebRTC signals out of band): its
/// packets repeat RTP timestamps another stream of the same flow already sent.
///
/// Each of a new stream's first packets is compared with its siblings (other streams of the
/// same source and destination). A packet whose timestamp is at most `lookBackSeconds` behind a
/// sibling's highest timestamp matches that sibling; the first packet that matches none, or
/// another sibling, makes the stream media for good. Independent streams start at random
/// timestamps (RFC 3550 section 5.1), so a chance match has a probability of about
/// 5 s × 90 kHz / 2^32 ≈ 1e-4 for the first packet. A packet strictly behind (a repair of an
/// older packet) is evidence, and `packetsToDecide` of them decide; a packet at the sibling's
/// newest timestamp, or ahead of it by at most the same window, proves nothing: libwebrtc's
/// payload padding repeats the newest frame on the retransmission stream before any repair,
/// and after an outage the repairs of frames the capture point never saw arrive before the
/// media's next new frame. A stream only ever at pace for `packetsAtPaceToDecide` packets is
/// media (e.g. a simulcast layer sending the same frames as its sibling). While deciding, a
/// matching stream already counts as a retransmission, so a short burst of repairs never
/// reaches the peer's jitter.
struct RepairCheck {
  /// Packets behind the sibling examined before the role is final.
  static let packetsToDecide: UInt8 = 8
  /// Packets at the sibling's pace (or ahead) before a stream with no packet behind is media:
  /// the counter's range. libwebrtc's start-of-call payload padding was 7 or 8 packets in the
  /// e2e runs (e2e/media/media-truth.sh); a simulcast layer sends 255 packets in a second or two.
  static let packetsAtPaceToDecide: UInt8 = .max
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
  /// Packets at the sibling's newest timestamp or ahead of it (no evidence either way).
  var packetsAtPace: UInt8 = 0
  /// The SSRC of the stream it repairs (valid while `repairedIndex` is not -1).
  var repairedSSRC: UInt32 = 0

  var isDecided: Bool {
    packetsChecked >= Self.packetsToDecide || packetsAtPace >= Self.packetsAtPaceToDecide
  }

  /// How far `timestamp` is behind `highest`, in RTP units, with wrap-around (RFC 3550 section
  /// 5.1: timestamps are modulo 2^32); negative when it is ahead.
  static func lag(of timestamp: UInt32, behind highest: UInt32) -> Int64 {
    Int64(Int32(bitPattern: highest &- timestamp))
  }
}
