import NetQualityCore

/// What a test writes for one peer at one tick, in the history's terms, and the engine's
/// `PeerSnapshot` made of it. Loss and jitter of a direction are there together or not at all
/// (the engine's `QualityModel.Inputs`).
struct PeerValues: Equatable {
  var name: String
  var state = ConnectionState.connected
  var txLevel: QualityLevel
  var rxLevel: QualityLevel
  var txMOS: Double?
  var rxMOS: Double?
  var txLossRatio: Double?
  var rxLossRatio: Double?
  var txJitterMilliseconds: Double?
  var rxJitterMilliseconds: Double?
  var roundTripMilliseconds: Double?
  var rxPackets: Int64 = 100
  var rxLost: Int64 = 0
  var txPackets: Int64 = 100
  var rxBitsPerSecond = 64_000.0
  var streams = 2

  /// What measured each direction: nothing while its level is unknown.
  var txSource: MeasurementSource? { txLevel == .unknown ? nil : .probe }
  var rxSource: MeasurementSource? { rxLevel == .unknown ? nil : .rtp }

  func snapshot(at time: CaptureTime) -> PeerSnapshot {
    PeerSnapshot(
      peer: name, state: state, stateSince: time,
      rx: direction(
        rxLevel, mos: rxMOS, loss: rxLossRatio, jitter: rxJitterMilliseconds, source: .rtp),
      tx: direction(
        txLevel, mos: txMOS, loss: txLossRatio, jitter: txJitterMilliseconds, source: .probe),
      roundTripMilliseconds: roundTripMilliseconds,
      roundTripSource: roundTripMilliseconds == nil ? nil : .rtcp, rxPackets: rxPackets,
      rxLost: rxLost, rxBitsPerSecond: rxBitsPerSecond, txPackets: txPackets,
      rxPacketsTotal: rxPackets, rxLostTotal: rxLost, txPacketsTotal: txPackets,
      rxRetransmittedPackets: 0, txRetransmittedPackets: 0, rxFECPackets: 0,
      rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0, streams: streams)
  }

  private func direction(
    _ level: QualityLevel, mos: Double?, loss: Double?, jitter: Double?,
    source: MeasurementSource
  ) -> DirectionSnapshot {
    var inputs: QualityModel.Inputs?
    if let loss, let jitter {
      inputs = QualityModel.Inputs(
        packets: 100, lossRatio: loss, jitterMilliseconds: jitter,
        roundTripMilliseconds: roundTripMilliseconds, isVideo: false)
    }
    return DirectionSnapshot(
      level: level, rawLevel: level, inputs: inputs, meanOpinionScore: mos,
      source: level == .unknown ? nil : source)
  }
}
