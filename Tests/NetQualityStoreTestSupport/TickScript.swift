import NetQualityCore
import NetQualityExport
import NetQualityStore

/// A deterministic run of ticks for tests: `peerNames.count` peers, a tick every
/// `intervalSeconds` from `start`, with levels that change every few ticks (so a minute holds
/// several levels each way) and figures that are sometimes missing (no MOS while a direction
/// is unknown or down, no round trip every eleventh tick). Expectations are computed from the
/// same values that are written.
public struct TickScript {
  /// 2023-11-14 22:14:00 UTC: a whole minute.
  public static let epoch = 1_700_000_040.0

  public var start = TickScript.epoch
  public var intervalSeconds = 2.0
  public var peerNames = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
  public var tickCount: Int

  public init(
    start: Double = TickScript.epoch, intervalSeconds: Double = 2.0,
    peerNames: [String] = ["10.0.0.1", "10.0.0.2", "10.0.0.3"], tickCount: Int
  ) {
    self.start = start
    self.intervalSeconds = intervalSeconds
    self.peerNames = peerNames
    self.tickCount = tickCount
  }

  public func time(_ tick: Int) -> Double { start + Double(tick) * intervalSeconds }

  public func captureTime(_ tick: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: Int64((time(tick) * 1e9).rounded()))
  }

  /// The last tick's time.
  public var newest: Double { time(tickCount - 1) }

  public func values(tick: Int, peer: Int) -> PeerValues {
    let txLevel = QualityLevel(rawValue: 1 + (tick / 5 + peer) % 5) ?? .unknown
    let rxLevel = QualityLevel(rawValue: (tick / 7 + 3 * peer) % 7) ?? .unknown
    let rxMeasured = rxLevel != .unknown && rxLevel != .down
    return PeerValues(
      name: peerNames[peer], state: rxLevel == .down ? .disconnected : .connected,
      txLevel: txLevel, rxLevel: rxLevel,
      txMOS: 4.5 - 0.5 * Double(txLevel.rawValue) + 0.05 * Double(tick % 3),
      rxMOS: rxMeasured ? 4.4 - 0.4 * Double(rxLevel.rawValue) + 0.03 * Double(tick % 4) : nil,
      txLossRatio: Double(tick % 10) / 100 + Double(peer) / 1000,
      rxLossRatio: rxMeasured ? Double((tick + peer) % 8) / 50 : nil,
      txJitterMilliseconds: Double(tick % 13) + 0.5,
      rxJitterMilliseconds: rxMeasured ? Double((tick * 3 + peer) % 17) + 0.25 : nil,
      roundTripMilliseconds: tick % 11 == 0 ? nil : 20 + Double((tick * 7 + peer * 3) % 50),
      rxPackets: 100 + Int64((tick + peer) % 7), rxLost: Int64(tick % 4),
      txPackets: 100 + Int64(tick % 3), rxBitsPerSecond: 64_000 + 100 * Double(tick % 5),
      streams: 1 + peer % 2)
  }

  public func snapshot(_ tick: Int) -> Snapshot {
    let time = captureTime(tick)
    let peers = peerNames.indices.map { values(tick: tick, peer: $0).snapshot(at: time) }
    return Snapshot(
      time: time, intervalSeconds: intervalSeconds,
      hostRx: peers.map(\.rx.level).reduce(.unknown) { $0.worse($1) },
      hostTx: peers.map(\.tx.level).reduce(.unknown) { $0.worse($1) }, peers: peers,
      streams: [])
  }

  public func tick(_ tick: Int, events: [EngineEvent] = []) -> HistoryTick {
    HistoryTick(snapshot: snapshot(tick), events: events, renderCall: CallsJSON.recordText)
  }

  /// The ticks whose time is in [from, to).
  public func ticks(from: Double, to: Double) -> [Int] {
    (0..<tickCount).filter { time($0) >= from && time($0) < to }
  }

  /// The start of the minute `time` is in.
  public static func minute(_ time: Double) -> Double { (time / 60).rounded(.down) * 60 }
}
