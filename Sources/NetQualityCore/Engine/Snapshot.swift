/// One direction of a peer at a tick: its damped level and what produced it.
///
/// Stored compactly, 64 bytes instead of 104: every peer's snapshot is kept from one tick to
/// the next (100,000 peers are 25.6 MB of them at 256 bytes each, 36.8 MB at 368): the scoring
/// inputs inline with a flag, the optional figures as `PackedOptionalDouble`.
public struct DirectionSnapshot: Sendable, Equatable {
  private var inputPackets: Int64
  private var inputLossRatio: Double
  private var inputJitterMilliseconds: Double
  @PackedOptionalDouble private var inputRoundTripMilliseconds: Double?
  /// The E-model's rating R (ITU-T G.107).
  @PackedOptionalDouble public var rating: Double?
  @PackedOptionalDouble public var meanOpinionScore: Double?
  @PackedOptionalDouble public var oneWayDelayMilliseconds: Double?
  public var level: QualityLevel
  /// The level of this window before damping.
  public var rawLevel: QualityLevel
  /// What measured the level: the peer's RTP (or its RTCP reports), or our probes. With both,
  /// the worse of their levels is the direction's.
  public var source: MeasurementSource?
  public var limitedBy: LimitingFactor?
  private var hasInputs: Bool
  private var inputIsVideo: Bool

  public init(
    level: QualityLevel, rawLevel: QualityLevel, inputs: QualityModel.Inputs? = nil,
    rating: Double? = nil, meanOpinionScore: Double? = nil,
    oneWayDelayMilliseconds: Double? = nil, limitedBy: LimitingFactor? = nil,
    source: MeasurementSource? = nil
  ) {
    self.level = level
    self.rawLevel = rawLevel
    inputPackets = inputs?.packets ?? 0
    inputLossRatio = inputs?.lossRatio ?? 0
    inputJitterMilliseconds = inputs?.jitterMilliseconds ?? 0
    inputRoundTripMilliseconds = inputs?.roundTripMilliseconds
    inputIsVideo = inputs?.isVideo ?? false
    hasInputs = inputs != nil
    self.rating = rating
    self.meanOpinionScore = meanOpinionScore
    self.oneWayDelayMilliseconds = oneWayDelayMilliseconds
    self.limitedBy = limitedBy
    self.source = source
  }

  /// What the level was scored from (nil: nothing to score).
  public var inputs: QualityModel.Inputs? {
    get {
      guard hasInputs else { return nil }
      return QualityModel.Inputs(
        packets: inputPackets, lossRatio: inputLossRatio,
        jitterMilliseconds: inputJitterMilliseconds,
        roundTripMilliseconds: inputRoundTripMilliseconds, isVideo: inputIsVideo)
    }
    set {
      inputPackets = newValue?.packets ?? 0
      inputLossRatio = newValue?.lossRatio ?? 0
      inputJitterMilliseconds = newValue?.jitterMilliseconds ?? 0
      inputRoundTripMilliseconds = newValue?.roundTripMilliseconds
      inputIsVideo = newValue?.isVideo ?? false
      hasInputs = newValue != nil
    }
  }

  public static let unknown = DirectionSnapshot(level: .unknown, rawLevel: .unknown)

  /// Disconnected: nothing to score, and the level says so.
  public static let down = DirectionSnapshot(
    level: .down, rawLevel: .down, limitedBy: .disconnected)
}

/// One peer at a tick.
///
/// Stored compactly, 256 bytes instead of 368 (see `DirectionSnapshot`): the window's counts in
/// 32 bits (clamped, as in `StreamWindow`: a 2-second window would need a billion packets a
/// second to reach the bound), the round trip as a `PackedOptionalDouble`.
public struct PeerSnapshot: Sendable, Equatable {
  /// The remote address (or configured name).
  public var peer: String
  public var stateSince: CaptureTime
  public var rx: DirectionSnapshot
  public var tx: DirectionSnapshot
  @PackedOptionalDouble public var roundTripMilliseconds: Double?
  public var rxBitsPerSecond: Double
  /// Cumulative figures since the peer was first seen.
  public var rxPacketsTotal: Int64
  public var rxLostTotal: Int64
  public var txPacketsTotal: Int64
  /// Cumulative repair packets, like the totals above.
  public var rxRetransmittedTotal: Int64
  public var txRetransmittedTotal: Int64
  public var rxFECTotal: Int64
  /// Window figures of the streams from the peer.
  @ClampedInt32 public var rxPackets: Int64
  @ClampedInt32 public var rxLost: Int64
  @ClampedInt32 public var txPackets: Int64
  /// Repair packets in the window, outside the figures above (see `StreamRole`): RFC 4588
  /// retransmissions from the peer and to it, and FEC packets from it.
  @ClampedInt32 public var rxRetransmittedPackets: Int64
  @ClampedInt32 public var txRetransmittedPackets: Int64
  @ClampedInt32 public var rxFECPackets: Int64
  @ClampedInt32 public var streams: Int
  /// Where the round trip comes from: RTCP reports, or ICE checks when RTCP is encrypted.
  public var roundTripSource: RoundTripSource?
  public var state: ConnectionState
  /// Whether our probes measured the peer (`probe` is not nil), kept inline (in the padding:
  /// the stride stays 256): asked of each of 100,000 peers at every tick's `/metrics`, a
  /// look into each box was a cache miss per peer (perf, issue 37).
  public private(set) var isProbed = false
  /// The probe figures and the media experience live out of line, in one box: two thirds of a
  /// snapshot's size when inline (809 of 1,209 bytes for the probe figures), and most peers of
  /// a media server are not probed; one reference keeps the record at 256 bytes.
  private var extrasBox: OutOfLine<PeerExtras>? {
    didSet { isProbed = extrasBox?.value.hasProbe ?? false }
  }

  public init(
    peer: String, state: ConnectionState, stateSince: CaptureTime, rx: DirectionSnapshot,
    tx: DirectionSnapshot, roundTripMilliseconds: Double? = nil,
    roundTripSource: RoundTripSource? = nil, rxPackets: Int64, rxLost: Int64,
    rxBitsPerSecond: Double, txPackets: Int64, rxPacketsTotal: Int64, rxLostTotal: Int64,
    txPacketsTotal: Int64, rxRetransmittedPackets: Int64, txRetransmittedPackets: Int64,
    rxFECPackets: Int64, rxRetransmittedTotal: Int64, txRetransmittedTotal: Int64,
    rxFECTotal: Int64, streams: Int, probe: ProbeSnapshot? = nil, media: PeerMedia? = nil
  ) {
    self.init(
      peer: peer, state: state, stateSince: stateSince, rx: rx, tx: tx,
      roundTripMilliseconds: roundTripMilliseconds, roundTripSource: roundTripSource,
      rxPackets: rxPackets, rxLost: rxLost, rxBitsPerSecond: rxBitsPerSecond,
      txPackets: txPackets, rxPacketsTotal: rxPacketsTotal, rxLostTotal: rxLostTotal,
      txPacketsTotal: txPacketsTotal, rxRetransmittedPackets: rxRetransmittedPackets,
      txRetransmittedPackets: txRetransmittedPackets, rxFECPackets: rxFECPackets,
      rxRetransmittedTotal: rxRetransmittedTotal, txRetransmittedTotal: txRetransmittedTotal,
      rxFECTotal: rxFECTotal, streams: streams,
      extras: PeerExtras.boxed(probe: probe, media: media))
  }

  /// The engine's: the probe figures and media already boxed (`PeerExtras.boxed`).
  init(
    peer: String, state: ConnectionState, stateSince: CaptureTime, rx: DirectionSnapshot,
    tx: DirectionSnapshot, roundTripMilliseconds: Double?, roundTripSource: RoundTripSource?,
    rxPackets: Int64, rxLost: Int64, rxBitsPerSecond: Double, txPackets: Int64,
    rxPacketsTotal: Int64, rxLostTotal: Int64, txPacketsTotal: Int64,
    rxRetransmittedPackets: Int64, txRetransmittedPackets: Int64, rxFECPackets: Int64,
    rxRetransmittedTotal: Int64, txRetransmittedTotal: Int64, rxFECTotal: Int64, streams: Int,
    extras: OutOfLine<PeerExtras>?
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
    self.extrasBox = extras
    isProbed = extras?.value.hasProbe ?? false
  }

  /// The box of the probe figures and media, for the next tick to reuse.
  var extras: OutOfLine<PeerExtras>? { extrasBox }

  /// The peer's media experience (nil: no media stream nor feedback; docs/media.md).
  public var media: PeerMedia? {
    get {
      guard let extrasBox, extrasBox.value.hasMedia else { return nil }
      return extrasBox.value.media
    }
    set { extrasBox = PeerExtras.boxed(probe: probe, media: newValue) }
  }

  /// What our probes to the peer measured (nil: not probed).
  public var probe: ProbeSnapshot? {
    // The flag asked first: an absent probe read as an optional copied all its 809 bytes,
    // for each of 100,000 peers at every tick's `/metrics` (perf, issue 37).
    get {
      guard let extrasBox, extrasBox.value.hasProbe else { return nil }
      return extrasBox.value.probe
    }
    set { extrasBox = PeerExtras.boxed(probe: newValue, media: media) }
  }

  /// What the peer's figures come from: its RTP streams, our probes, or both.
  public var sources: [MeasurementSource] {
    (streams > 0 ? [.rtp] : []) + (isProbed ? [.probe] : [])
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

/// What a peer snapshot keeps out of line (`PeerSnapshot.extrasBox`).
///
/// The media is stored with a flag, not as an optional: `Optional`'s `==` copies both sides to
/// compare them, and every held peer's media (858 bytes) was compared at every tick, three
/// copies a peer, 8 % of a tick under churn (perf, issue 37). Compared in place instead
/// (`holds(probe:mediaAt:of:)`). The probe figures stay optional (a box with media and without
/// a probe would carry their 809 bytes), with a flag to ask without touching them.
struct PeerExtras: Sendable, Equatable {
  let probe: ProbeSnapshot?
  private var mediaFigures = PeerMedia()
  private(set) var hasProbe = false
  private(set) var hasMedia = false

  init(probe: ProbeSnapshot?, media: PeerMedia?) {
    self.probe = probe
    hasProbe = probe != nil
    if let media { (mediaFigures, hasMedia) = (media, true) }
  }

  var media: PeerMedia? { hasMedia ? mediaFigures : nil }

  /// Whether it holds `probe` and the media at `place` in `table` (nil: no media).
  func holds(probe: BoxedProbe?, mediaAt place: Int?, of table: PeerMediaTable) -> Bool {
    guard holdsMedia(at: place, of: table) else { return false }
    switch (hasProbe, probe) {
    case (false, nil): return true
    case (true, let probe?): return self.probe == probe.value
    case (false, _?), (true, nil): return false
    }
  }

  /// Whether its media is the one at `place` in `table` (nil: no media), compared in place
  /// (read through the buffer: the array's subscript copied the record to compare it).
  func holdsMedia(at place: Int?, of table: PeerMediaTable) -> Bool {
    guard let place else { return !hasMedia }
    return hasMedia && table.records.withUnsafeBufferPointer { mediaFigures == $0[place] }
  }

  /// A box for what there is, none for nothing: `previous` again when it holds the same (a
  /// silent peer's figures do not change, and a box a tick for each of 100,000 held peers was
  /// 4 % of a tick under churn, issue 37).
  static func boxed(
    probe: ProbeSnapshot?, media: PeerMedia?, reusing previous: OutOfLine<PeerExtras>? = nil
  ) -> OutOfLine<PeerExtras>? {
    guard probe != nil || media != nil else { return nil }
    let extras = PeerExtras(probe: probe, media: media)
    if let previous, previous.value == extras { return previous }
    return OutOfLine(extras)
  }

  /// The same, for the media at `place` in the tick's table (the scorer's peers).
  static func boxed(
    probe: BoxedProbe?, mediaAt place: Int?, of table: PeerMediaTable,
    reusing previous: OutOfLine<PeerExtras>?
  ) -> OutOfLine<PeerExtras>? {
    guard probe != nil || place != nil else { return nil }
    if let previous, previous.value.holds(probe: probe, mediaAt: place, of: table) {
      return previous
    }
    return OutOfLine(PeerExtras(probe: probe?.value, media: place.map { table.records[$0] }))
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
/// A tick's windows of every stream are published, so the record is kept small (112 bytes, 168
/// before): the counts of one 2-second window are stored in 32 bits (clamped; a window would
/// need a billion packets a second to reach that), the loss ratio is computed from them, and
/// the optional figures are `PackedOptionalDouble`s.
public struct StreamWindow: Sendable, Equatable {
  public var key: StreamKey
  public var direction: StreamDirection
  public var role: StreamRole
  public var state: ConnectionState
  @ClampedInt32 public private(set) var packets: Int64
  @ClampedInt32 public private(set) var expected: Int64
  @ClampedInt32 public private(set) var lost: Int64
  /// Expected minus received in this window, negative when late packets filled earlier gaps.
  @ClampedInt32 public private(set) var lostChange: Int64
  @ClampedInt32 public private(set) var duplicates: Int64
  @ClampedInt32 public private(set) var late: Int64
  public var bitsPerSecond: Double
  /// The largest RFC 3550 jitter in the window (nil: the stream's clock is unknown).
  @PackedOptionalDouble public var jitterMilliseconds: Double?
  @PackedOptionalDouble public var roundTripMilliseconds: Double?
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
    self.packets = packets
    self.expected = expected
    self.lost = lost
    self.lostChange = lostChange
    self.duplicates = duplicates
    self.late = late
    self.bitsPerSecond = bitsPerSecond
    self.jitterMilliseconds = jitterMilliseconds
    self.roundTripMilliseconds = roundTripMilliseconds
    self.packetsTotal = packetsTotal
    self.lostTotal = lostTotal
  }

  /// Lost of expected in this window (0 when none was expected).
  public var lossRatio: Double {
    expected > 0 ? Double(lost) / Double(expected) : 0
  }
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
  /// The fleet's counters since the engine started, this tick included.
  public var counters: EngineCounters
  /// Media experience: the streams that have one, the fleet's totals (docs/media.md).
  public var media = MediaTickSnapshot()
  /// The calls: how many are open, those that ended in the tick, the counters.
  public var calls: CallsSnapshot

  public init(
    time: CaptureTime, intervalSeconds: Double, hostRx: QualityLevel, hostTx: QualityLevel,
    peers: [PeerSnapshot], streams: [StreamWindow], counters: EngineCounters = EngineCounters(),
    calls: CallsSnapshot = CallsSnapshot()
  ) {
    self.time = time
    self.intervalSeconds = intervalSeconds
    self.hostRx = hostRx
    self.hostTx = hostTx
    self.peers = peers
    self.streams = streams
    self.counters = counters
    self.calls = calls
  }
}
