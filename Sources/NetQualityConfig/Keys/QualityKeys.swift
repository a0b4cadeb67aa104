/// The quality model (docs/quality-model.md): applied by a reload. The defaults and the
/// reasons for them are `QualityModel`'s.
enum QualityKeys {
  static let all: [ConfigurationKey] = [
    .value("quality.rating_floors", \.engine.quality.ratingFloors, .live) { walker, node, name in
      walker.numbers(node, name, count: 4, descending: true)
    },
    .value("quality.jitter_ceilings_ms", \.engine.quality.jitterCeilingsMilliseconds, .live) {
      walker, node, name in walker.numbers(node, name, count: 4, descending: false)
    },
    .value("quality.min_packets", \.engine.quality.minimumPackets, .live) { walker, node, name in
      walker.integer(node, name, in: 1...100_000).map(Int64.init)
    },
    .integer("quality.scoring_windows", \.engine.quality.scoringWindows, in: 1...60, .live),
    // The damper counts runs in 8 bits (`LevelDamper`).
    .integer("quality.worsen_after_ticks", \.engine.quality.worsenAfterTicks, in: 1...60, .live),
    .integer(
      "quality.worsen_one_level_after_ticks", \.engine.quality.worsenOneLevelAfterTicks,
      in: 1...255, .live),
    .integer(
      "quality.improve_after_ticks", \.engine.quality.improveAfterTicks, in: 1...60, .live),
    .integer(
      "quality.improve_one_level_after_ticks", \.engine.quality.improveOneLevelAfterTicks,
      in: 1...255, .live),
    .number(
      "quality.feedback_stale_seconds", \.engine.quality.feedbackStaleSeconds, in: 1...3600,
      .live),
    // A codec's G.113 figures: Ie 0 to 95 (G.107's range), Bpl above 0, a second of delay
    // at most.
    .number("quality.audio.ie", \.engine.quality.audio.equipmentImpairment, in: 0...95, .live),
    .number("quality.audio.bpl", \.engine.quality.audio.lossRobustness, in: 0.1...100, .live),
    .number(
      "quality.audio.codec_delay_ms", \.engine.quality.audio.codecDelayMilliseconds,
      in: 0...1000, .live),
    .number("quality.video.ie", \.engine.quality.video.equipmentImpairment, in: 0...95, .live),
    .number("quality.video.bpl", \.engine.quality.video.lossRobustness, in: 0.1...100, .live),
    .number(
      "quality.video.codec_delay_ms", \.engine.quality.video.codecDelayMilliseconds,
      in: 0...1000, .live),
  ]
}
