/// The level shown for a direction (dashboard, API, `/metrics`, status page, and what a quality
/// alert resolves on): the windows' own levels with hysteresis, so that a steady impairment
/// shows one level however its windows scatter around a band's edge, while a real change shows
/// within seconds.
///
/// - Two or more bands worse shows after `worsenAfter` ticks in a row that are (1: at once), as
///   the least bad of them: a real degradation is reported at once.
/// - One band worse shows after `worsenOneLevelAfter` ticks in a row (3).
/// - Two or more bands better, and good or excellent, shows after `improveAfter` ticks in a row
///   that are (3), as the worst of them: a real recovery shows within seconds.
/// - Any other better level shows after `improveOneLevelAfter` ticks in a row that are better
///   (30, a minute at 2 s), as the worst of them.
///
/// A steady impairment near an edge scatters across it: with 12 % random loss on G.711 (R about
/// 61, the edge of poor and bad at 60) a third of the windows score bad, and runs below bad
/// lasted up to 16 ticks in 10 minutes; at 15 % single windows reach very bad and runs of poor
/// follow (`AlertHysteresisTests`). One band of difference is noise until it holds; the worst
/// of a long run is what the impairment is.
///
/// Unknown in either place carries no trend: the news is taken as it is.
public struct LevelDamper: Sendable, Equatable {
  public private(set) var level: QualityLevel = .unknown
  /// Each run is its length (saturating at 255: `QualityModel`'s ranges keep the settings
  /// below) and its mildest (worse runs) or worst (better runs) level.
  private var worse = Run()
  private var muchWorse = Run()
  private var better = Run()
  private var muchBetter = Run()

  private struct Run: Equatable {
    var level: QualityLevel = .unknown
    var ticks: UInt8 = 0

    /// Extends the run with `raw`, keeping the mildest (`worst: false`) or worst level.
    mutating func extend(_ raw: QualityLevel, worst: Bool) {
      level = ticks == 0 ? raw : (worst ? max(level, raw) : min(level, raw))
      if ticks < .max { ticks += 1 }
    }
  }

  public init() {}

  @discardableResult
  public mutating func update(
    _ raw: QualityLevel, worsenAfter: Int, worsenOneLevelAfter: Int, improveAfter: Int,
    improveOneLevelAfter: Int
  ) -> QualityLevel {
    if raw == level || level == .unknown || raw == .unknown {
      take(raw)
      return level
    }
    if raw > level {
      (better, muchBetter) = (Run(), Run())
      worse.extend(raw, worst: false)
      if raw.rawValue >= level.rawValue + 2 {
        muchWorse.extend(raw, worst: false)
      } else {
        muchWorse = Run()
      }
      if Int(muchWorse.ticks) >= worsenAfter {
        take(muchWorse.level)
      } else if Int(worse.ticks) >= worsenOneLevelAfter {
        take(worse.level)
      }
      return level
    }
    (worse, muchWorse) = (Run(), Run())
    better.extend(raw, worst: true)
    if raw.rawValue <= level.rawValue - 2 && raw <= .good {
      muchBetter.extend(raw, worst: true)
    } else {
      muchBetter = Run()
    }
    if Int(muchBetter.ticks) >= improveAfter {
      take(muchBetter.level)
    } else if Int(better.ticks) >= improveOneLevelAfter {
      take(better.level)
    }
    return level
  }

  private mutating func take(_ new: QualityLevel) {
    level = new
    (worse, muchWorse, better, muchBetter) = (Run(), Run(), Run(), Run())
  }
}
