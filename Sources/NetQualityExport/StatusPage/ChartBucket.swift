import NetQualityCore

/// The ticks of one time bucket of a peer's chart, added up as they come: the worst level each
/// way, and sums and counts for the mean loss and round trip. 32 bytes.
public struct ChartBucket: Sendable, Equatable {
  /// `floor(time / bucketSeconds)`: buckets start at multiples of their length, so memory and
  /// the history cut time the same way.
  public var number: Int64
  public var rxLevel = QualityLevel.unknown
  public var txLevel = QualityLevel.unknown
  private var rxLossCount: UInt16 = 0
  private var txLossCount: UInt16 = 0
  private var roundTripCount: UInt16 = 0
  private var rxLossSum: Float = 0
  private var txLossSum: Float = 0
  private var roundTripSum: Float = 0

  public init(number: Int64) {
    self.number = number
  }

  /// Adds one tick's figures of a peer.
  public mutating func add(
    rxLevel: QualityLevel, txLevel: QualityLevel, rxLossRatio: Double?, txLossRatio: Double?,
    roundTripMilliseconds: Double?
  ) {
    self.rxLevel = self.rxLevel.worse(rxLevel)
    self.txLevel = self.txLevel.worse(txLevel)
    func add(_ value: Double?, _ sum: inout Float, _ count: inout UInt16) {
      guard let value, value.isFinite, count < .max else { return }
      sum += Float(value)
      count += 1
    }
    add(rxLossRatio, &rxLossSum, &rxLossCount)
    add(txLossRatio, &txLossSum, &txLossCount)
    add(roundTripMilliseconds, &roundTripSum, &roundTripCount)
  }

  public func point(bucketSeconds: Double) -> ChartPoint {
    func mean(_ sum: Float, _ count: UInt16) -> Double? {
      count == 0 ? nil : Double(sum) / Double(count)
    }
    return ChartPoint(
      time: Double(number) * bucketSeconds, rxLevel: rxLevel, txLevel: txLevel,
      rxLossRatio: mean(rxLossSum, rxLossCount), txLossRatio: mean(txLossSum, txLossCount),
      roundTripMilliseconds: mean(roundTripSum, roundTripCount))
  }
}
