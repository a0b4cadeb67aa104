import NetQualityCore

/// What a test writes for one peer at one tick, in the history's terms, and the engine's
/// `PeerSnapshot` made of it. Loss and jitter of a direction are there together or not at all
/// (the engine's `QualityModel.Inputs`).
public struct PeerValues: Equatable, Sendable {
  public var name: String
  public var state = ConnectionState.connected
  public var txLevel: QualityLevel
  public var rxLevel: QualityLevel
  public var txMOS: Double?
  public var rxMOS: Double?
  public var txLossRatio: Double?
  public var rxLossRatio: Double?
  public var txJitterMilliseconds: Double?
  public var rxJitterMilliseconds: Double?
  public var roundTripMilliseconds: Double?
  public var rxPackets: Int64 = 100
  public var rxLost: Int64 = 0
  public var txPackets: Int64 = 100
  public var rxBitsPerSecond = 64_000.0
  public var streams = 2

  public init(
    name: String, state: ConnectionState = .connected, txLevel: QualityLevel,
    rxLevel: QualityLevel, txMOS: Double? = nil, rxMOS: Double? = nil,
    txLossRatio: Double? = nil, rxLossRatio: Double? = nil,
    txJitterMilliseconds: Double? = nil, rxJitterMilliseconds: Double? = nil,
    roundTripMilliseconds: Double? = nil, rxPackets: Int64 = 100, rxLost: Int64 = 0,
    txPackets: Int64 = 100, rxBitsPerSecond: Double = 64_000, streams: Int = 2
  ) {
    self.name = name
    self.state = state
    self.txLevel = txLevel
    self.rxLevel = rxLevel
    self.txMOS = txMOS
    self.rxMOS = rxMOS
    self.txLossRatio = txLossRatio
    self.rxLossRatio = rxLossRatio
    self.txJitterMilliseconds = txJitterMilliseconds
    self.rxJitterMilliseconds = rxJitterMilliseconds
    self.roundTripMilliseconds = roundTripMilliseconds
    self.rxPackets = rxPackets
    self.rxLost = rxLost
    self.txPackets = txPackets
    self.rxBitsPerSecond = rxBitsPerSecond
    self.streams = streams
  }

  /// What measured each direction: nothing while its level is unknown.
  public var txSource: MeasurementSource? { txLevel == .unknown ? nil : .probe }
  public var rxSource: MeasurementSource? { rxLevel == .unknown ? nil : .rtp }

  public func snapshot(at time: CaptureTime) -> PeerSnapshot {
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
