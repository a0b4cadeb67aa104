import NetQualityCore
import NetQualitySynth

/// Peers whose network wanders: each has a condition between 0 (clean) and 1 (unusable) that
/// drifts back to its own usual level, with bursts now and then; loss, jitter, round trip,
/// level and MOS follow from it. Now and then a peer goes silent for a while (disconnected,
/// level down, no figures) and comes back, and a peer whose condition stays bad fires an
/// alert that resolves when it recovers. Seeded: every run writes the same values.
struct PeerSimulator {
  private struct Peer {
    var name: String
    var usual: Double
    var condition: Double
    var baseRoundTripMilliseconds: Double
    var silentTicks = 0
    var badTicks = 0
    var alert: Alert?
  }

  private var peers: [Peer]
  private var random: SplitMix64
  let intervalSeconds = 2.0

  init(peers count: Int, seed: UInt64 = 1) {
    random = SplitMix64(seed: seed)
    var peers: [Peer] = []
    for index in 0..<count {
      // Most peers are mostly clean; one in ten usually struggles.
      let usual = index % 10 == 9 ? 0.45 : 0.08 + 0.1 * random.nextUnitInterval()
      peers.append(
        Peer(
          name: "10.\(index / 65_536 % 256).\(index / 256 % 256).\(index % 256)", usual: usual,
          condition: usual, baseRoundTripMilliseconds: 15 + 180 * random.nextUnitInterval()))
    }
    self.peers = peers
  }

  var peerNames: [String] { peers.map(\.name) }

  /// The next tick: every peer's snapshot and the events between the previous tick and this.
  mutating func tick(at time: CaptureTime) -> (Snapshot, [EngineEvent]) {
    var snapshots: [PeerSnapshot] = []
    snapshots.reserveCapacity(peers.count)
    var events: [EngineEvent] = []
    for index in peers.indices {
      var peer = peers[index]
      snapshots.append(step(&peer, at: time, events: &events))
      peers[index] = peer
    }
    let snapshot = Snapshot(
      time: time, intervalSeconds: intervalSeconds,
      hostRx: snapshots.map(\.rx.level).reduce(.unknown) { $0.worse($1) },
      hostTx: snapshots.map(\.tx.level).reduce(.unknown) { $0.worse($1) }, peers: snapshots,
      streams: [])
    return (snapshot, events)
  }

  private mutating func step(_ peer: inout Peer, at time: CaptureTime, events: inout [EngineEvent])
    -> PeerSnapshot
  {
    // About one silence per peer every 11 hours, of 10 to 60 ticks.
    if peer.silentTicks == 0 && random.nextUnitInterval() < 1.0 / 20_000 {
      peer.silentTicks = 10 + Int(random.nextUnitInterval() * 50)
      events.append(EngineEvent(time: time, kind: .disconnected, peer: peer.name))
    }
    if peer.silentTicks > 0 {
      peer.silentTicks -= 1
      if peer.silentTicks == 0 {
        events.append(
          EngineEvent(
            time: time, kind: .recovered, peer: peer.name, previousState: .disconnected))
      } else {
        return snapshot(peer, at: time, silent: true)
      }
    }
    // Mean-reverting drift, and a burst about once an hour.
    peer.condition += 0.1 * (peer.usual - peer.condition) + 0.04 * (random.nextUnitInterval() - 0.5)
    if random.nextUnitInterval() < 1.0 / 1800 { peer.condition += 0.5 }
    peer.condition = min(1, max(0, peer.condition))
    alerts(&peer, at: time, events: &events)
    return snapshot(peer, at: time, silent: false)
  }

  /// An alert fires after 5 ticks above 0.6 and resolves below 0.4.
  private func alerts(_ peer: inout Peer, at time: CaptureTime, events: inout [EngineEvent]) {
    peer.badTicks = peer.condition > 0.6 ? peer.badTicks + 1 : 0
    if peer.alert == nil && peer.badTicks >= 5 {
      let alert = Alert(
        id: "rx_loss:\(peer.name):\(time.nanosecondsSinceEpoch / 1_000_000)", rule: "rx_loss",
        severity: .warning, labels: ["peer": peer.name, "direction": "rx"], state: .firing,
        start: time, summary: "rx loss above 5 % for 5 ticks")
      peer.alert = alert
      events.append(EngineEvent(time: time, kind: .alertFiring, peer: peer.name, alert: alert))
    } else if var alert = peer.alert, peer.condition < 0.4 {
      alert.state = .resolved
      alert.end = time
      peer.alert = nil
      events.append(EngineEvent(time: time, kind: .alertResolved, peer: peer.name, alert: alert))
    }
  }

  private mutating func snapshot(_ peer: Peer, at time: CaptureTime, silent: Bool) -> PeerSnapshot {
    guard !silent else {
      return PeerSnapshot(
        peer: peer.name, state: .disconnected, stateSince: time, rx: .down, tx: .down,
        rxPackets: 0, rxLost: 0, rxBitsPerSecond: 0, txPackets: 0, rxPacketsTotal: 0,
        rxLostTotal: 0, txPacketsTotal: 0, rxRetransmittedPackets: 0, txRetransmittedPackets: 0,
        rxFECPackets: 0, rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0,
        streams: 0)
    }
    let condition = peer.condition
    let roundTrip = peer.baseRoundTripMilliseconds * (1 + condition) + 5 * random.nextUnitInterval()
    let rx = direction(
      condition + 0.05 * random.nextUnitInterval(), roundTrip: roundTrip, source: .rtp)
    let tx = direction(
      condition + 0.05 * random.nextUnitInterval(), roundTrip: roundTrip, source: .probe)
    let packets = Int64(100 + random.nextUnitInterval() * 4)
    let lost = Int64((Double(packets) * (rx.inputs?.lossRatio ?? 0)).rounded())
    return PeerSnapshot(
      peer: peer.name, state: .connected, stateSince: time, rx: rx, tx: tx,
      roundTripMilliseconds: roundTrip, roundTripSource: .rtcp, rxPackets: packets - lost,
      rxLost: lost, rxBitsPerSecond: Double(packets - lost) * 8 * 172 / intervalSeconds,
      txPackets: packets, rxPacketsTotal: 0, rxLostTotal: 0, txPacketsTotal: 0,
      rxRetransmittedPackets: 0, txRetransmittedPackets: 0, rxFECPackets: 0,
      rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0, streams: 2)
  }

  private mutating func direction(
    _ condition: Double, roundTrip: Double, source: MeasurementSource
  ) -> DirectionSnapshot {
    let loss = min(1, condition * condition * 0.25 + 0.002 * random.nextUnitInterval())
    let jitter = 1 + condition * 40 + 2 * random.nextUnitInterval()
    let mos = max(1, min(4.5, 4.45 - 3.2 * condition))
    let level: QualityLevel =
      switch mos {
      case 4.0...: .excellent
      case 3.6..<4.0: .good
      case 3.1..<3.6: .poor
      case 2.6..<3.1: .bad
      default: .veryBad
      }
    return DirectionSnapshot(
      level: level, rawLevel: level,
      inputs: QualityModel.Inputs(
        packets: 100, lossRatio: loss, jitterMilliseconds: jitter,
        roundTripMilliseconds: roundTrip, isVideo: false),
      meanOpinionScore: mos, source: source)
  }
}
