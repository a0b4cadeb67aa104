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
  var rxPacketsTotal: Int64 = 0
  var rxLostTotal: Int64 = 0
  var txPacketsTotal: Int64 = 0
  /// When the peer last recovered from an outage: receiver reports soon after it describe the
  /// outage, not the path now.
  var recoveredAt: CaptureTime?
  /// The capture interfaces the peer's streams were seen on at the last tick: a link going
  /// down takes these peers down at once (`Scorer.linkChanged`).
  var interfaces = InterfaceSet()

  init(firstSeen: CaptureTime) {
    tracker = ConnectionTracker(firstSeen: firstSeen)
  }
}

/// The last few windows' packets and losses of one kind of media, pooled for scoring.
struct WindowPool {
  private var windows: [(packets: Int64, expected: Int64, lost: Int64)] = []

  mutating func push(packets: Int64, expected: Int64, lost: Int64, keep: Int) {
    if packets == 0, expected == 0, lost == 0,
      windows.allSatisfy({ $0.packets == 0 && $0.expected == 0 && $0.lost == 0 })
    {
      // Nothing in the pool nor in the window (a peer without video, or not probed): an empty
      // pool sums the same, and keeps no storage.
      windows = []
      return
    }
    windows.append((packets, expected, lost))
    if windows.count > keep { windows.removeFirst(windows.count - keep) }
  }

  var packets: Int64 { windows.reduce(0) { $0 + $1.packets } }
  /// Windows held (none while every one was empty).
  var windowCount: Int { windows.count }
  /// Pooled loss, never below 0 (late packets refund loss counted in an earlier window).
  var lossRatio: Double {
    let expected = windows.reduce(0) { $0 + $1.expected }
    let lost = windows.reduce(0) { $0 + $1.lost }
    return expected > 0 ? Double(max(0, lost)) / Double(expected) : 0
  }
}

/// A stream's cumulative counts at the previous tick.
struct StreamBaseline {
  /// The stream the baseline belongs to (indices are reused after a stream is forgotten).
  var firstArrival = CaptureTime(nanosecondsSinceEpoch: 0)
  var counts = StreamCounts()
}
