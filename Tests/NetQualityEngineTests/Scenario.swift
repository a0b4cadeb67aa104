import NetQualityCore
import NetQualityProbe
import NetQualitySynth

/// A call between a local and a remote host, packet by packet, driven through the engine with a
/// tick every 2 s of packet time. Each test shapes one direction's traffic and reads the ticks.
struct Scenario {
  static let local = Endpoint(address: IPAddress(ipv4: 192, 0, 2, 1), port: 40_000)
  static let remote = Endpoint(address: IPAddress(ipv4: 198, 51, 100, 7), port: 50_000)
  static let localRTCP = Endpoint(address: local.address, port: 40_001)
  static let remoteRTCP = Endpoint(address: remote.address, port: 50_001)
  static let start: Int64 = 1_700_000_000_000_000_000
  static let peer = "198.51.100.7"

  var engine: Engine
  var ticks: [Engine.TickResult] = []
  /// Our side of the probes of `probes(...)`, kept across calls: the agent's session for 50
  /// probes/s with a 1 s deadline (its in-flight window holds 200 probes).
  var probeSession = STAMPSession(
    target: reflector, deadlineSeconds: 1,
    capacity: STAMPSession.capacity(ratePerSecond: 50, deadlineSeconds: 1))
  private var nextTick: Int64

  init(configure: (inout EngineConfiguration) -> Void = { _ in }) {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("192.0.2.0/24")].compactMap { $0 }
    configure(&configuration)
    engine = Engine(configuration: configuration)
    nextTick = Self.start + Int64(configuration.tickIntervalSeconds * 1e9)
  }

  static func time(_ seconds: Double) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: start + Int64(seconds * 1e9))
  }

  /// Feeds a frame at `seconds` after the start, ticking first for every boundary passed.
  mutating func feed(_ frame: [UInt8], at seconds: Double) {
    let time = Self.time(seconds)
    advance(to: time.nanosecondsSinceEpoch)
    frame.withUnsafeBytes {
      engine.ingest(frame: $0, originalLength: $0.count, linkType: .ethernet, at: time)
    }
  }

  /// Ticks up to (and including) `seconds` with no packets.
  mutating func idle(until seconds: Double) {
    advance(to: Self.time(seconds).nanosecondsSinceEpoch)
  }

  mutating func advance(to nanoseconds: Int64) {
    let interval = Int64(engine.configuration.tickIntervalSeconds * 1e9)
    while nextTick <= nanoseconds {
      ticks.append(engine.tick(at: CaptureTime(nanosecondsSinceEpoch: nextTick)))
      nextTick += interval
    }
  }

  /// G.711 at 50 packets/s from `from` to `to` over [start, end) seconds; `drop(i)` removes
  /// packet i, `delay(i)` adds seconds to its arrival.
  mutating func audio(
    from: Endpoint = remote, to: Endpoint = local, ssrc: UInt32 = 0xAAAA,
    seconds range: Range<Double>,
    firstSequence: Int = 0, drop: (Int) -> Bool = { _ in false },
    delay: (Int) -> Double = { _ in 0 },
    duplicate: (Int) -> Bool = { _ in false }
  ) {
    var frames: [(Double, [UInt8])] = []
    let count = Int(((range.upperBound - range.lowerBound) * 50).rounded())
    let firstIndex = Int((range.lowerBound * 50).rounded())
    for offset in 0..<count {
      let index = firstIndex + offset
      guard !drop(index) else { continue }
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: firstSequence + index),
        timestamp: UInt32(truncatingIfNeeded: index * 160), ssrc: ssrc)
      let frame = PacketBuilder.frame(source: from, destination: to, payload: rtp)
      let arrival = Double(index) * 0.02 + delay(index)
      frames.append((arrival, frame))
      if duplicate(index) { frames.append((arrival + 0.001, frame)) }
    }
    for (arrival, frame) in frames.sorted(by: { $0.0 < $1.0 }) { feed(frame, at: arrival) }
  }

  /// Both directions of a call at once, interleaved in time. Packet i (at i × 20 ms) has
  /// sequence number `firstSequence` + i both ways.
  mutating func call(
    seconds range: Range<Double>, firstSequence: Int = 0,
    rxDrop: @escaping (Int) -> Bool = { _ in false },
    rxDelay: @escaping (Int) -> Double = { _ in 0 }
  ) {
    var step = range.lowerBound
    while step < range.upperBound {
      let end = min(range.upperBound, step + 1)
      audio(seconds: step..<end, firstSequence: firstSequence, drop: rxDrop, delay: rxDelay)
      audio(
        from: Self.local, to: Self.remote, ssrc: 0xBBBB, seconds: step..<end,
        firstSequence: firstSequence)
      step = end
    }
  }

  var last: Snapshot? { ticks.last?.snapshot }
  var events: [EngineEvent] { ticks.flatMap(\.events) }

  func peer(at tick: Int) -> PeerSnapshot? {
    ticks[tick].snapshot.peers.first { $0.peer == Self.peer }
  }

  var lastPeer: PeerSnapshot? { last?.peers.first { $0.peer == Self.peer } }
}

/// Drops exactly `percent` of every 100 packets at positions drawn at random (seeded): an
/// i.i.d.-looking pattern whose rate is exact in every 2 s window.
func exactRandomLoss(percent: Int, seed: UInt64 = 9) -> (Int) -> Bool {
  var random = SplitMix64(seed: seed)
  var dropped: Set<Int> = []
  for block in 0..<200 {
    var positions = Array(0..<100)
    for index in stride(from: 99, to: 0, by: -1) {
      positions.swapAt(index, Int(random.next() % UInt64(index + 1)))
    }
    for position in positions.prefix(percent) { dropped.insert(block * 100 + position) }
  }
  return { dropped.contains($0) }
}
