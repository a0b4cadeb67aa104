/// One direction of a peer at a tick: its damped level and what produced it.
public struct DirectionSnapshot: Sendable, Equatable {
  // Declared in this order so the one-byte fields fill the padding after `inputs` (104 bytes
  // instead of 120: a snapshot of every peer is kept, and a second one built at each tick).
  public var inputs: QualityModel.Inputs?
  public var level: QualityLevel
  /// The level of this window before damping.
  public var rawLevel: QualityLevel
  /// What measured the level: the peer's RTP (or its RTCP reports), or our probes. With both,
  /// the worse of their levels is the direction's.
  public var source: MeasurementSource?
  public var rating: Double?
  public var meanOpinionScore: Double?
  public var oneWayDelayMilliseconds: Double?
  public var limitedBy: String?

  public init(
    level: QualityLevel, rawLevel: QualityLevel, inputs: QualityModel.Inputs? = nil,
    rating: Double? = nil, meanOpinionScore: Double? = nil,
    oneWayDelayMilliseconds: Double? = nil, limitedBy: String? = nil,
    source: MeasurementSource? = nil
  ) {
    self.level = level
    self.rawLevel = rawLevel
    self.inputs = inputs
    self.rating = rating
    self.meanOpinionScore = meanOpinionScore
    self.oneWayDelayMilliseconds = oneWayDelayMilliseconds
    self.limitedBy = limitedBy
    self.source = source
  }

  public static let unknown = DirectionSnapshot(
    level: .unknown, rawLevel: .unknown, inputs: nil, rating: nil, meanOpinionScore: nil,
    oneWayDelayMilliseconds: nil, limitedBy: nil, source: nil)

  /// Disconnected: nothing to score, and the level says so.
  public static let down = DirectionSnapshot(
    level: .down, rawLevel: .down, inputs: nil, rating: nil, meanOpinionScore: nil,
    oneWayDelayMilliseconds: nil, limitedBy: "disconnected", source: nil)
}

/// One peer at a tick.
public struct PeerSnapshot: Sendable, Equatable {
  /// The remote address (or configured name).
  public var peer: String
  public var stateSince: CaptureTime
  public var rx: DirectionSnapshot
  public var tx: DirectionSnapshot
  public var roundTripMilliseconds: Double?
  /// Where the round trip comes from: RTCP reports, or ICE checks when RTCP is encrypted.
  public var roundTripSource: RoundTripSource?
  // After the optional round trip, in its padding.
  public var state: ConnectionState
  /// Window figures of the streams from the peer.
  public var rxPackets: Int64
  public var rxLost: Int64
  public var rxBitsPerSecond: Double
  public var txPackets: Int64
  /// Cumulative figures since the peer was first seen.
  public var rxPacketsTotal: Int64
  public var rxLostTotal: Int64
  public var txPacketsTotal: Int64
  /// Repair packets in the window, outside the figures above (see `StreamRole`): RFC 4588
  /// retransmissions from the peer and to it, and FEC packets from it.
  public var rxRetransmittedPackets: Int64
  public var txRetransmittedPackets: Int64
  public var rxFECPackets: Int64
  /// Cumulative repair packets, like the totals above.
  public var rxRetransmittedTotal: Int64
  public var txRetransmittedTotal: Int64
  public var rxFECTotal: Int64
  public var streams: Int
  /// What our probes to the peer measured (nil: not probed).
  public var probe: ProbeSnapshot? {
    get { probeBox?.value }
    set { probeBox = newValue.map(OutOfLine.init) }
  }
  /// The probe figures live out of line: two thirds of a snapshot's size when inline
  /// (809 of 1,209 bytes), and most peers of a media server are not probed.
  private var probeBox: OutOfLine<ProbeSnapshot>?

  public init(
    peer: String, state: ConnectionState, stateSince: CaptureTime, rx: DirectionSnapshot,
    tx: DirectionSnapshot, roundTripMilliseconds: Double? = nil,
    roundTripSource: RoundTripSource? = nil, rxPackets: Int64, rxLost: Int64,
    rxBitsPerSecond: Double, txPackets: Int64, rxPacketsTotal: Int64, rxLostTotal: Int64,
    txPacketsTotal: Int64, rxRetransmittedPackets: Int64, txRetransmittedPackets: Int64,
    rxFECPackets: Int64, rxRetransmittedTotal: Int64, txRetransmittedTotal: Int64,
    rxFECTotal: Int64, streams: Int, probe: ProbeSnapshot? = nil
  ) {
    self.peer = peer
    self.state = state
    self.stateSince = stateSince
    self.rx = rx
    self.tx = tx
    self.roundTripMilliseconds = roundTripMilliseconds
    self.roundTripSource = roundTripSource
    self.rxPackets = rxPackets
    self.rxLost = rxLost
    self.rxBitsPerSecond = rxBitsPerSecond
    self.txPackets = txPackets
    self.rxPacketsTotal = rxPacketsTotal
    self.rxLostTotal = rxLostTotal
    self.txPacketsTotal = txPacketsTotal
    self.rxRetransmittedPackets = rxRetransmittedPackets
    self.txRetransmittedPackets = txRetransmittedPackets
    self.rxFECPackets = rxFECPackets
    self.rxRetransmittedTotal = rxRetransmittedTotal
    self.txRetransmittedTotal = txRetransmittedTotal
    self.rxFECTotal = rxFECTotal
    self.streams = streams
    self.probeBox = probe.map(OutOfLine.init)
  }

  /// What the peer's figures come from: its RTP streams, our probes, or both.
  public var sources: [MeasurementSource] {
    (streams > 0 ? [.rtp] : []) + (probe != nil ? [.probe] : [])
  }

  /// The worse of the two directions' levels (unknown, 0, is the least: a direction without
  /// data never hides the other's).
  public var worstLevel: QualityLevel { max(rx.level, tx.level) }

  /// The lower of the two directions' MOS: what the call sounds like at its worse end.
  public var meanOpinionScore: Double? {
    switch (rx.meanOpinionScore, tx.meanOpinionScore) {
    case (let rx?, let tx?): min(rx, tx)
    case (let rx?, nil): rx
    case (nil, let tx): tx
    }
  }
}

/// Where a peer's figures come from.
public enum MeasurementSource: String, Sendable, Equatable {
  /// Captured RTP and RTCP.
  case rtp
  /// Our STAMP probes to a reflector at the peer's address (RFC 8762).
  case probe
}

/// What measured a peer's round trip.
public enum RoundTripSource: String, Sendable, Equatable {
  /// RFC 3550 section 6.4.1: the peer's receiver reports about our streams (LSR/DLSR).
  case rtcp
  /// ICE connectivity or consent checks (RFC 8445, RFC 7675): a Binding request to the peer
  /// and its response, paired by transaction ID.
  case stun
  /// Our STAMP probes: (T4 - T1) - (T3 - T2), RFC 8762 section 4, the window's mean.
  case probe
}

/// The per-window figures of one stream.
///
/// A tick's windows of every stream are published and a second set is built at the next
/// tick, so the record is kept small (128 bytes, 168 before): the counts of one 2-second window
/// are stored in 32 bits (clamped; a window would need a billion packets a second to reach
/// that) and the loss ratio is computed from them.
public struct StreamWindow: Sendable, Equatable {
  public var key: StreamKey
  public var direction: StreamDirection
  public var role: StreamRole
  public var state: ConnectionState
  private var windowPackets: Int32
  private var windowExpected: Int32
  private var windowLost: Int32
  private var windowLostChange: Int32
  private var windowDuplicates: Int32
  private var windowLate: Int32
  public var bitsPerSecond: Double
  public var jitterMilliseconds: Double?
  public var roundTripMilliseconds: Double?
  /// Cumulative since the stream began.
  public var packetsTotal: Int64
  public var lostTotal: Int64

  public init(
    key: StreamKey, direction: StreamDirection, role: StreamRole, state: ConnectionState,
    packets: Int64, expected: Int64, lost: Int64, lostChange: Int64, duplicates: Int64,
    late: Int64, bitsPerSecond: Double, jitterMilliseconds: Double?,
    roundTripMilliseconds: Double?, packetsTotal: Int64, lostTotal: Int64
  ) {
    self.key = key
    self.direction = direction
    self.role = role
    self.state = state
    windowPackets = Int32(clamping: packets)
    windowExpected = Int32(clamping: expected)
    windowLost = Int32(clamping: lost)
    windowLostChange = Int32(clamping: lostChange)
    windowDuplicates = Int32(clamping: duplicates)
    windowLate = Int32(clamping: late)
    self.bitsPerSecond = bitsPerSecond
    self.jitterMilliseconds = jitterMilliseconds
    self.roundTripMilliseconds = roundTripMilliseconds
    self.packetsTotal = packetsTotal
    self.lostTotal = lostTotal
  }

  public var packets: Int64 { Int64(windowPackets) }
  public var expected: Int64 { Int64(windowExpected) }
  public var lost: Int64 { Int64(windowLost) }
  /// Expected minus received in this window, negative when late packets filled earlier gaps.
  public var lostChange: Int64 { Int64(windowLostChange) }
  /// Lost of expected in this window (0 when none was expected).
  public var lossRatio: Double {
    windowExpected > 0 ? Double(windowLost) / Double(windowExpected) : 0
  }
  public var duplicates: Int64 { Int64(windowDuplicates) }
  public var late: Int64 { Int64(windowLate) }
}

/// What a tick closes: host, peers, streams.
public struct Snapshot: Sendable, Equatable {
  public var time: CaptureTime
  public var intervalSeconds: Double
  /// The worst current level over active peers, per direction.
  public var hostRx: QualityLevel
  public var hostTx: QualityLevel
  public var peers: [PeerSnapshot]
  public var streams: [StreamWindow]

  public init(
    time: CaptureTime, intervalSeconds: Double, hostRx: QualityLevel, hostTx: QualityLevel,
    peers: [PeerSnapshot], streams: [StreamWindow]
  ) {
    self.time = time
    self.intervalSeconds = intervalSeconds
    self.hostRx = hostRx
    self.hostTx = hostTx
    self.peers = peers
    self.streams = streams
  }
}
