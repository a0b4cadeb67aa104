/// A probe session's delays since it began, as histograms (Prometheus `netquality_probe_*`).
public struct ProbeHistograms: Sendable, Equatable {
  public var roundTrip: DelayHistogram
  public var forwardDelay = DelayHistogram(boundsSeconds: DelayHistogram.oneWayDelayBoundsSeconds)
  public var backwardDelay = DelayHistogram(
    boundsSeconds: DelayHistogram.oneWayDelayBoundsSeconds)
  public var forwardDelayVariation = DelayHistogram(
    boundsSeconds: DelayHistogram.delayVariationBoundsSeconds)
  public var backwardDelayVariation = DelayHistogram(
    boundsSeconds: DelayHistogram.delayVariationBoundsSeconds)

  /// `roundTripBoundsSeconds`: the round trip's buckets (`EngineConfiguration`).
  public init(roundTripBoundsSeconds: [Double] = DelayHistogram.roundTripBoundsSeconds) {
    roundTrip = DelayHistogram(boundsSeconds: roundTripBoundsSeconds)
  }

  public mutating func merge(_ other: ProbeHistograms) {
    roundTrip.merge(other.roundTrip)
    forwardDelay.merge(other.forwardDelay)
    backwardDelay.merge(other.backwardDelay)
    forwardDelayVariation.merge(other.forwardDelayVariation)
    backwardDelayVariation.merge(other.backwardDelayVariation)
  }
}
