/// What the engine remembers of one peer between ticks.
struct PeerRecord {
  var tracker: ConnectionTracker
  var rxAudio = WindowPool()
  var rxVideo = WindowPool()
  /// The probes' backward (reflector to us) and forward directions.
  var probeRx = WindowPool()
  var probeTx = WindowPool()
  var rxDamper = LevelDamper()
  var txDamper = LevelDamper()
  /// The tick that last scored the peer (`Scorer.tickNumber`, `Scorer.forgetPeers`): 32 bits, in
  /// the dampers' padding (a tick every 2 s wraps after 272 years).
  var scoredTick: UInt32 = 0
  var rxPacketsTotal: Int64 = 0
  var rxLostTotal: Int64 = 0
  var txPacketsTotal: Int64 = 0
  /// When the peer last recovered from an outage: receiver reports soon after it describe the
  /// outage, not the path now.
  var recoveredAt: CaptureTime?
  /// The capture interfaces the peer's streams were seen on at the last tick: a link going
  /// down takes these peers down at once (`Scorer.linkChanged`).
  var interfaces = InterfaceSet()
  /// Time at each level shown, and the worst of the last minute (`/metrics`).
  var levelCounters = PeerLevelCounters()
  /// The last snapshot's probe figures and media, boxed: reused while they stay the same.
  var extras: OutOfLine<PeerExtras>?
  /// Set while the peer is silent and its scoring at a fixed point (`RestingPeer`).
  var resting: OutOfLine<RestingPeer>?

  init(firstSeen: CaptureTime) {
    tracker = ConnectionTracker(firstSeen: firstSeen)
  }

  /// What a forgotten peer's place, or a record taken out (`PeerRecords.take`), holds: no
  /// pooled windows, so no storage.
  static let vacant = PeerRecord(firstSeen: CaptureTime(nanosecondsSinceEpoch: 0))
}

/// The last few windows' packets and losses of one kind of media, pooled for scoring.
struct WindowPool {
  /// One window's counts in 32 bits (clamped, as in `StreamWindow`: a 2-second window would
  /// need a billion packets a second to reach the bound): 12 bytes a window instead of 24.
  private struct Counts {
    var packets: Int32
    var expected: Int32
    var lost: Int32

    var isEmpty: Bool { packets == 0 && expected == 0 && lost == 0 }
  }

  private var windows: [Counts] = []

  mutating func push(packets: Int64, expected: Int64, lost: Int64, keep: Int) {
    if packets == 0, expected == 0, lost == 0, windows.allSatisfy(\.isEmpty) {
      // Nothing in the pool nor in the window (a peer without video, or not probed): an empty
      // pool sums the same, and keeps no storage.
      windows = []
      return
    }
    windows.append(
      Counts(
        packets: Int32(clamping: packets), expected: Int32(clamping: expected),
        lost: Int32(clamping: lost)))
    if windows.count > keep { windows.removeFirst(windows.count - keep) }
  }

  var packets: Int64 { windows.reduce(0) { $0 + Int64($1.packets) } }
  /// Windows held (none while every one was empty).
  var windowCount: Int { windows.count }
  /// Pooled loss, never below 0 (late packets refund loss counted in an earlier window).
  var lossRatio: Double {
    let expected = windows.reduce(0) { $0 + Int64($1.expected) }
    let lost = windows.reduce(0) { $0 + Int64($1.lost) }
    return expected > 0 ? Double(max(0, lost)) / Double(expected) : 0
  }
}
