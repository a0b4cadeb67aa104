/// What the ticks of a rule's streak measured. An alert quotes these, the figures that made it
/// fire, not those of the tick it happens to fire on.
public struct AlertEvidence: Sendable, Equatable {
  /// Ticks that measured the rule while it was pending.
  public private(set) var ticks = 0
  /// The value furthest past the threshold over the streak (the largest for `>`/`>=`, the
  /// smallest for `<`/`<=`; the value itself for `==`).
  public private(set) var worstValue = 0.0
  /// The largest loss ratio and jitter of the direction's windows over the streak, where the
  /// rule's metric has a direction that was scored.
  public private(set) var maxLossRatio: Double?
  public private(set) var maxJitterMilliseconds: Double?

  public init() {}

  mutating func add(
    _ value: Double, comparison: AlertRule.Comparison, inputs: QualityModel.Inputs?
  ) {
    ticks += 1
    switch comparison {
    case .greater, .greaterOrEqual: worstValue = ticks == 1 ? value : max(worstValue, value)
    case .less, .lessOrEqual: worstValue = ticks == 1 ? value : min(worstValue, value)
    case .equal: worstValue = value
    }
    if let inputs {
      maxLossRatio = max(maxLossRatio ?? inputs.lossRatio, inputs.lossRatio)
      maxJitterMilliseconds = max(
        maxJitterMilliseconds ?? inputs.jitterMilliseconds, inputs.jitterMilliseconds)
    }
  }
}
