/// Keeps a reported level from flapping: a worse level shows after `worsenAfter` ticks in a
/// row, a better one only after `improveAfter`; from unknown, the first judgement shows at once.
public struct LevelDamper: Sendable, Equatable {
  public private(set) var level: QualityLevel = .unknown
  private var candidate: QualityLevel = .unknown
  /// 32 bits (saturating): with the two levels, 8 bytes where an `Int` made 16, in every peer's
  /// record twice.
  private var candidateTicks: Int32 = 0

  public init() {}

  @discardableResult
  public mutating func update(_ raw: QualityLevel, worsenAfter: Int, improveAfter: Int)
    -> QualityLevel
  {
    if raw == level || level == .unknown || raw == .unknown {
      // Unknown in either place carries no trend: take the news as it is.
      level = raw
      candidateTicks = 0
      return level
    }
    if raw == candidate {
      if candidateTicks < .max { candidateTicks += 1 }
    } else {
      candidate = raw
      candidateTicks = 1
    }
    let needed = raw > level ? worsenAfter : improveAfter
    if Int(candidateTicks) >= needed {
      level = raw
      candidateTicks = 0
    }
    return level
  }
}
