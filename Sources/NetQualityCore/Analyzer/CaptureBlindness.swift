/// A stretch of time in which a live capture saw nothing because the kernel dropped what it
/// captured: its ring was full (the agent was stopped or fell behind, `LiveCapture`'s ring holds
/// 64 blocks, each handed over 100 ms after its first packet: 6.4 s of light traffic). It runs
/// from the interface's last packet before the gap to its first packet after (nil while the
/// capture has not seen one yet).
///
/// What happened to a peer in it is unknown, so no peer's silence and no stream's loss is
/// counted across it: a peer heard until the capture went blind is taken to be alive through
/// it (`Scorer.advanceState`), and a stream that goes on after it starts a new run of
/// sequence numbers there (`SequenceTracker.skip(to:)`), its skipped numbers neither received
/// nor lost. Without it, a 30 s stop of the agent with a call flowing gave the peer an
/// interruption, a disconnection and 1,180 lost packets that the network never lost (issue 39).
public struct CaptureBlindSpan: Sendable, Equatable {
  public var interface: UInt8
  public var from: CaptureTime
  public var to: CaptureTime?

  public init(interface: UInt8, from: CaptureTime, to: CaptureTime?) {
    self.interface = interface
    self.from = from
    self.to = to
  }

  /// A peer or stream last heard at most this long before the capture went blind was alive
  /// then (its packets come every 20 ms, or at least every RTCP interval's fraction that
  /// counts for liveness): the length of the shortest silence the engine remembers
  /// (`RTPStream.silenceNanoseconds`).
  public static let liveBeforeNanoseconds: Int64 = 1_000_000_000

  /// Whether something last heard at `last` was alive when the capture went blind and has not
  /// been heard since the capture could see again (at `until`: the span's end, or `now` while
  /// it lasts): its silence is then the capture's, not its own.
  public func hides(silenceSince last: CaptureTime, until end: CaptureTime) -> Bool {
    last <= from
      && from.nanosecondsSinceEpoch - last.nanosecondsSinceEpoch <= Self.liveBeforeNanoseconds
      && last < (to ?? end)
  }
}

/// The live capture's blind spans, found in the packets' own times (`StreamAnalyzer`): the
/// capture thread says when the kernel's drop count grew (`noticeDrops`), and the first gap of
/// a second or more between two packets of that interface read after it is the span (the ring's
/// content, read first, ends where the drops began; the next packet came once the agent read
/// again). Drops without such a gap (an overload: the ring full for moments) make no span: the
/// first packet stamped after the drops were noticed, with no gap before it, ends the wait.
struct CaptureBlindness: Sendable {
  /// Interfaces are numbered 0...255 (`UInt8`).
  static let interfaceCount = 256
  /// The shortest gap taken for a blind span: a silence the engine remembers
  /// (`RTPStream.silenceNanoseconds`).
  static let minimumGapNanoseconds: Int64 = 1_000_000_000

  /// Each interface's latest packet time (corrected clock), `Int64.min` before any.
  private var lastPacket = [Int64](repeating: .min, count: interfaceCount)
  /// Interfaces whose drops were noticed (and when, corrected clock) whose gap is not read yet.
  private var waiting: [(interface: UInt8, noticed: Int64)] = []
  /// Each interface's latest span: from and to, `Int64.max` for none (the per-packet check
  /// of `spanEnded` then never holds).
  private var spanFrom = [Int64](repeating: .max, count: interfaceCount)
  private var spanTo = [Int64](repeating: .max, count: interfaceCount)
  /// Spans found since the last `take`, for the scorer and the capture's log.
  private(set) var found: [CaptureBlindSpan] = []
  /// Spans found in all.
  private(set) var spanCount: Int64 = 0

  /// The capture of `interface` lost packets in the kernel, noticed at `time` (corrected
  /// clock) before reading it again.
  mutating func noticeDrops(interface: UInt8, at time: CaptureTime) {
    guard !waiting.contains(where: { $0.interface == interface }) else { return }
    waiting.append((interface, time.nanosecondsSinceEpoch))
  }

  /// A packet of `interface` at `nanoseconds`: closes the span its drops opened if this packet
  /// ends a gap.
  @inline(__always)
  mutating func observe(interface: UInt8, at nanoseconds: Int64) {
    let slot = Int(interface)
    if !waiting.isEmpty { close(slot, interface: interface, at: nanoseconds) }
    lastPacket[slot] = nanoseconds
  }

  private mutating func close(_ slot: Int, interface: UInt8, at nanoseconds: Int64) {
    guard let position = waiting.firstIndex(where: { $0.interface == interface }) else { return }
    let last = lastPacket[slot]
    guard last != .min, nanoseconds &- last >= Self.minimumGapNanoseconds else {
      // Stamped after the drops were noticed and no gap before it: the drops were no blind
      // stretch (an overload), and a later silence is the network's.
      if nanoseconds >= waiting[position].noticed { waiting.remove(at: position) }
      return
    }
    waiting.remove(at: position)
    spanFrom[slot] = last
    spanTo[slot] = nanoseconds
    spanCount += 1
    found.append(
      CaptureBlindSpan(
        interface: interface, from: CaptureTime(nanosecondsSinceEpoch: last),
        to: CaptureTime(nanosecondsSinceEpoch: nanoseconds)))
  }

  /// The latest span of `interface`, if any.
  func latest(interface: UInt8) -> CaptureBlindSpan? {
    let slot = Int(interface)
    guard spanTo[slot] != .max else { return nil }
    return CaptureBlindSpan(
      interface: interface, from: CaptureTime(nanosecondsSinceEpoch: spanFrom[slot]),
      to: CaptureTime(nanosecondsSinceEpoch: spanTo[slot]))
  }

  /// Whether a stream of `interface` last heard at `last` and heard again at `now` was
  /// silent only because the capture was blind (`CaptureBlindSpan.hides`).
  @inline(__always)
  func spanEnded(interface: UInt8, between last: Int64, and now: Int64) -> Bool {
    let slot = Int(interface)
    let from = spanFrom[slot]
    return last <= from && from &- last <= CaptureBlindSpan.liveBeforeNanoseconds
      && now >= spanTo[slot]
  }

  /// The spans found since the last call, and those still open (drops noticed, no packet
  /// after the gap yet): from the interface's last packet, to nil.
  mutating func take() -> [CaptureBlindSpan] {
    var spans = found
    found.removeAll()
    for (interface, _) in waiting where lastPacket[Int(interface)] != .min {
      spans.append(
        CaptureBlindSpan(
          interface: interface,
          from: CaptureTime(nanosecondsSinceEpoch: lastPacket[Int(interface)]), to: nil))
    }
    return spans
  }
}
