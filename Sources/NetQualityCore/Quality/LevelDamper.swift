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
  /// The current run of ticks on one side of the level (worse or better), and within it the
  /// run of ticks two or more bands away (for better ones: to good or excellent). Each is its
  /// length (saturating at 255: `QualityModel`'s ranges keep the settings below) and its
  /// mildest (worse) or worst (better) level. One side at a time: 5 bytes, not 9 (every peer
  /// has two).
  private var run = Run()
  private var farRun = Run()

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
    let worse = raw > level
    if run.ticks > 0 && (run.level > level) != worse {
      // The other side: a run is ticks on one side in a row.
      (run, farRun) = (Run(), Run())
    }
    run.extend(raw, worst: !worse)
    let far =
      worse
      ? raw.rawValue >= level.rawValue + 2 : (raw.rawValue <= level.rawValue - 2 && raw <= .good)
    if far {
      farRun.extend(raw, worst: !worse)
    } else {
      farRun = Run()
    }
    if Int(farRun.ticks) >= (worse ? worsenAfter : improveAfter) {
      take(farRun.level)
    } else if Int(run.ticks) >= (worse ? worsenOneLevelAfter : improveOneLevelAfter) {
      take(run.level)
    }
    return level
  }

  private mutating func take(_ new: QualityLevel) {
    level = new
    (run, farRun) = (Run(), Run())
  }
}
