import NetQualityCore

/// One point of a peer's chart on the status page: the ticks of one time bucket summed up —
/// the worst level each way (unknown only when every tick was), the mean loss each way and the
/// mean round trip of the ticks that had one. Made from the history's per-tick rows or from the
/// agent's memory, the same way.
public struct ChartPoint: Sendable, Equatable {
  /// The bucket's start, Unix seconds.
  public var time: Double
  public var rxLevel: QualityLevel
  public var txLevel: QualityLevel
  public var rxLossRatio: Double?
  public var txLossRatio: Double?
  public var roundTripMilliseconds: Double?

  public init(
    time: Double, rxLevel: QualityLevel, txLevel: QualityLevel, rxLossRatio: Double?,
    txLossRatio: Double?, roundTripMilliseconds: Double?
  ) {
    self.time = time
    self.rxLevel = rxLevel
    self.txLevel = txLevel
    self.rxLossRatio = rxLossRatio
    self.txLossRatio = txLossRatio
    self.roundTripMilliseconds = roundTripMilliseconds
  }
}
