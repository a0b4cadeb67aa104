/// One call, written when it ends: what signalling said of it (SIP's Call-ID, users, answer
/// and final status, how it ended) and what its streams measured, per direction.
///
/// A call is the streams of one SIP dialog (bound by its SDP offer and answer), of one WebRTC
/// session (its ICE credentials and the flows they checked), or else a peer's continuous media
/// session: every stream belongs to exactly one call (docs/calls.md).
public struct CallRecord: Sendable, Equatable {
  public enum Kind: String, Sendable, CaseIterable, Codable {
    case sip
    case webrtc
    case media
  }

  /// Why a call ended.
  public enum EndReason: String, Sendable, CaseIterable, Codable {
    /// A BYE from the caller (the side that sent the INVITE) or the callee (RFC 3261 section
    /// 15): by its From tag.
    case byeCaller = "bye_caller"
    case byeCallee = "bye_callee"
    /// The caller cancelled the INVITE before an answer (RFC 3261 section 9: CANCEL, 487).
    case cancelled
    /// A final response of 300 to 699 to the INVITE (`finalStatus`).
    case rejected
    /// No final response to the INVITE within the INVITE transaction's timers (RFC 3261
    /// section 17.1.1.2: Timer B, 32 s, or Timer C, 3 min, after a provisional response).
    case noAnswer = "no_answer"
    /// RTCP BYE on every stream received (RFC 3550 section 6.6).
    case rtcpBye = "rtcp_bye"
    /// A DTLS alert on the session's flows (close_notify at a WebRTC hang-up).
    case dtlsAlert = "dtls_alert"
    /// The TURN allocation released (RFC 8656 section 7.2: Refresh with lifetime 0).
    case turnReleased = "turn_released"
    /// ICE consent expired (RFC 7675 section 5.1: no check answered for 30 s) with the media
    /// stopped.
    case consentExpired = "consent_expired"
    /// Nothing of the call (media, RTCP, in-dialog SIP) for the timeout interval.
    case timeout
    /// `analyze`: the capture ended with the call still going.
    case captureEnd = "capture_end"
  }

  /// One direction's figures over the call: `rx` what the local side received, `tx` what it
  /// sent (see docs/calls.md for what measures each).
  public struct Direction: Sendable, Equatable {
    public var packets: Int64 = 0
    /// rx: lost by sequence numbers (RFC 3550 A.3, never negative); tx: lost as the far end's
    /// receiver reports counted it (nil without reports).
    public var lost: Int64?
    public var maxJitterMilliseconds: Double?
    public var meanJitterMilliseconds: Double?
    /// Mean and largest round trip over the call's ticks (RTCP, ICE checks).
    public var meanRoundTripMilliseconds: Double?
    public var maxRoundTripMilliseconds: Double?
    public var minMeanOpinionScore: Double?
    public var meanMeanOpinionScore: Double?
    /// The worst level shown (0 unknown ... 6 down).
    public var worstLevel: QualityLevel = .unknown
    /// Seconds at each level shown, 0 (unknown) to 6 (down).
    public var levelSeconds = [Double](repeating: 0, count: 7)

    public init() {}
  }

  /// A stream of the call (the first `CallRecord.maxStreams` of them).
  public struct Stream: Sendable, Equatable {
    public var key: StreamKey
    public var direction: StreamDirection
    public var packets: Int64
    /// A media stream's loss while in the call as the capture counted it, from its cumulative
    /// counters (RFC 3550 appendix A.3: the gaps in its sequence numbers), outages included; nil
    /// for a repair stream. An rx stream's is what it lost on its way here; a tx stream's, at a
    /// relay, the gaps its ingress had or the relay made.
    public var lost: Int64?
    /// A tx stream: the far end's cumulative loss from its latest report block about it (RFC
    /// 3550 section 6.4.1), and of it the packets lost after the capture point (that loss less
    /// the stream's own gaps when the report came).
    public var farEndLost: Int64?
    public var downstreamLost: Int64?
    /// The largest RFC 3550 interarrival jitter of its ticks, and its latest round trip from
    /// RTCP (a tx stream: capture point to its receiver and back, RFC 3550 section 6.4.1).
    public var maxJitterMilliseconds: Double?
    public var roundTripMilliseconds: Double?
    /// Its silences of the `interrupted` timer or longer while not held, and their seconds
    /// (from the last packet before each to the first after).
    public var outages = 0
    public var outageSeconds = 0.0

    public init(key: StreamKey, direction: StreamDirection, packets: Int64) {
      self.key = key
      self.direction = direction
      self.packets = packets
    }
  }

  /// One stream through this host (a relay, SBC, TURN server or SFU): the same SSRC coming in
  /// (`ingress`, rx) and going out (`egress`, tx) in one call, and where its packets were lost
  /// (docs/calls.md, "Where the loss happened").
  public struct Hop: Sendable, Equatable {
    public var ssrc: UInt32
    public var ingress: StreamKey
    public var egress: StreamKey
    /// Gaps arriving: lost before this host.
    public var upstreamLost: Int64
    /// Gaps going out beyond those arriving: lost inside this host (never below 0).
    public var relayLost: Int64
    /// The far end's reported loss less the gaps already in what went out: lost after this
    /// host; nil without a report from the far end.
    public var downstreamLost: Int64?
    /// Egress jitter less ingress jitter (the largest of their ticks): what this host added.
    public var addedJitterMilliseconds: Double?
    /// Round trips from this host (RFC 3550 section 6.4.1, LSR and DLSR of the receivers'
    /// reports against the sender reports as this host forwarded them): to the sender and
    /// back (the sender's reports about the stream going back to it), to the receiver and back
    /// (the receiver's reports about the egress stream), and their sum, the end-to-end round
    /// trip less this host's own forwarding time; nil without those reports.
    public var upstreamRoundTripMilliseconds: Double?
    public var downstreamRoundTripMilliseconds: Double?
    public var endToEndRoundTripMilliseconds: Double? {
      guard let upstreamRoundTripMilliseconds, let downstreamRoundTripMilliseconds else {
        return nil
      }
      return upstreamRoundTripMilliseconds + downstreamRoundTripMilliseconds
    }

    public init(
      ssrc: UInt32, ingress: StreamKey, egress: StreamKey, upstreamLost: Int64,
      relayLost: Int64, downstreamLost: Int64?, addedJitterMilliseconds: Double?,
      upstreamRoundTripMilliseconds: Double? = nil, downstreamRoundTripMilliseconds: Double? = nil
    ) {
      self.ssrc = ssrc
      self.ingress = ingress
      self.egress = egress
      self.upstreamLost = upstreamLost
      self.relayLost = relayLost
      self.downstreamLost = downstreamLost
      self.addedJitterMilliseconds = addedJitterMilliseconds
      self.upstreamRoundTripMilliseconds = upstreamRoundTripMilliseconds
      self.downstreamRoundTripMilliseconds = downstreamRoundTripMilliseconds
    }

    /// The hops of a call's listed streams: each rx media stream with the tx media stream of
    /// the same SSRC (the first such pair of each SSRC).
    public static func pairs(of streams: [Stream]) -> [Hop] {
      var hops: [Hop] = []
      for ingress in streams where ingress.direction == .rx {
        guard let upstream = ingress.lost,
          !hops.contains(where: { $0.ssrc == ingress.key.ssrc }),
          let egress = streams.first(where: {
            $0.direction == .tx && $0.key.ssrc == ingress.key.ssrc && $0.lost != nil
          }),
          let gaps = egress.lost
        else { continue }
        var added: Double?
        if let into = ingress.maxJitterMilliseconds, let out = egress.maxJitterMilliseconds {
          added = out - into
        }
        // The sender's own reports come back through this host about the streams going
        // back to it: the round trip of the hop before this host.
        let back = streams.first {
          $0.direction == .tx && $0.key.destinationAddress == ingress.key.sourceAddress
            && $0.roundTripMilliseconds != nil
        }
        hops.append(
          Hop(
            ssrc: ingress.key.ssrc, ingress: ingress.key, egress: egress.key,
            upstreamLost: upstream, relayLost: max(0, gaps - upstream),
            downstreamLost: egress.downstreamLost, addedJitterMilliseconds: added,
            upstreamRoundTripMilliseconds: back?.roundTripMilliseconds,
            downstreamRoundTripMilliseconds: egress.roundTripMilliseconds))
      }
      return hops
    }
  }

  /// Streams listed in a record; `streamCount` counts them all.
  public static let maxStreams = 16
  /// Peer names listed in a record.
  public static let maxPeers = 4

  /// Stable and unique: 16 hex digits of a hash of the kind, the start and the call's key.
  public var id: String
  public var kind: Kind
  /// SIP: the Call-ID.
  public var callID: String?
  /// SIP: the user parts of From and To of the INVITE, masked as configured.
  public var fromUser: String?
  public var toUser: String?
  /// The remote peers the call's streams (or, without any, its signalling) went to.
  public var peers: [String]
  public var start: CaptureTime
  /// SIP: the 2xx to the INVITE; WebRTC and media: the first media packet.
  public var answer: CaptureTime?
  public var end: CaptureTime
  /// SIP: from the INVITE to the first 180/183, or to the final response when none came
  /// (RFC 6076 section 4.1, session request delay).
  public var postDialDelaySeconds: Double?
  /// SIP: the final response to the INVITE (200 for an answered call).
  public var finalStatus: Int?
  /// SIP: nothing ever answered the INVITE, not even a 100 Trying (a scan or a flood into
  /// silence, or a dead next hop): such records are budgeted
  /// (`CallSettings.silentRecordsPerSourcePerMinute`).
  public var noResponse = false
  /// A call still open: its figures so far, `end` the tick's time, `endReason` meaningless
  /// (`CallsSnapshot.open`).
  public var isOpen = false
  public var endReason: EndReason
  /// SIP: the INVITE was seen (false: the capture began mid-call, at a response or re-INVITE).
  public var startSeen: Bool
  public var rx = Direction()
  public var tx = Direction()
  public var streams: [Stream] = []
  /// The streams through this host and where their loss happened (`Hop.pairs`).
  public var hops: [Hop] = []
  public var streamCount = 0
  /// The codecs the SDP answers chose, in order (a change is a re-INVITE's).
  public var codecs: [String] = []
  /// Holds (re-INVITE or UPDATE with sendonly, inactive or the null address; RFC 3264
  /// section 8.4) and the seconds held.
  public var holds = 0
  public var heldSeconds = 0.0
  /// Outages of the call's media (interrupted or worse while not held) and their seconds.
  public var outages = 0
  public var outageSeconds = 0.0
  /// SIP messages of the call seen again (RFC 3261 section 17 retransmissions), and 2xx
  /// answers from other forks than the one that won (section 13.2.2.4).
  public var sipRetransmissions = 0
  public var forkedAnswers = 0
  /// The first and last tick the call was open in: the rows of `ticks` and `peer_ticks`
  /// between them (its peers') are the call's.
  public var firstTick: CaptureTime?
  public var lastTick: CaptureTime?

  public init(
    id: String, kind: Kind, peers: [String], start: CaptureTime, end: CaptureTime,
    endReason: EndReason, startSeen: Bool = true
  ) {
    self.id = id
    self.kind = kind
    self.peers = peers
    self.start = start
    self.end = end
    self.endReason = endReason
    self.startSeen = startSeen
  }

  /// From the start to the end.
  public var durationSeconds: Double { max(0, end.seconds(since: start)) }

  /// From the answer to the end (nil: never answered).
  public var talkSeconds: Double? { answer.map { max(0, end.seconds(since: $0)) } }

  /// A SIP call never answered: rejected, cancelled, unanswered or ended before an answer.
  public var isFailed: Bool { kind == .sip && answer == nil }

  /// The final status's class, `2xx` ... `6xx`, or `none`.
  public var statusClass: String { Self.statusClass(finalStatus) }

  public static func statusClass(_ status: Int?) -> String {
    guard let status, (100...699).contains(status) else { return "none" }
    return "\(status / 100)xx"
  }

  /// Every status class a record can have, in order.
  public static let statusClasses = ["none", "2xx", "3xx", "4xx", "5xx", "6xx"]

  /// The worse of the two directions' worst levels.
  public var worstLevel: QualityLevel { max(rx.worstLevel, tx.worstLevel) }

  /// The lower of the two directions' lowest MOS.
  public var minMeanOpinionScore: Double? {
    [rx.minMeanOpinionScore, tx.minMeanOpinionScore].compactMap { $0 }.min()
  }

  /// Bad: a level of bad or worse shown in either direction (an outage shows down).
  public var isBad: Bool { worstLevel >= .bad }
}
