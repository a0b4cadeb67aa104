/// How a window of measurements becomes a level 1...5, documented in docs/quality-model.md.
/// Every threshold is a setting; the defaults cite their source there.
public struct QualityModel: Sendable, Equatable {
  /// Codec behaviour under loss (ITU-T G.113 Appendix I).
  public struct CodecProfile: Sendable, Equatable {
    /// Ie: impairment of the codec itself.
    public var equipmentImpairment: Double
    /// Bpl: robustness to packet loss; smaller is more sensitive.
    public var lossRobustness: Double
    /// Codec frame plus look-ahead, milliseconds, part of the one-way delay.
    public var codecDelayMilliseconds: Double

    public init(equipmentImpairment: Double, lossRobustness: Double, codecDelayMilliseconds: Double)
    {
      self.equipmentImpairment = equipmentImpairment
      self.lossRobustness = lossRobustness
      self.codecDelayMilliseconds = codecDelayMilliseconds
    }
  }

  /// Audio: G.711 with packet loss concealment, G.113 Appendix I table I.3 (Ie 0, Bpl 25.1),
  /// 20 ms frames.
  public var audio = CodecProfile(
    equipmentImpairment: 0, lossRobustness: 25.1, codecDelayMilliseconds: 20)
  /// Video: loss costs a frozen picture until the next key frame, so it weighs more: Bpl 10
  /// makes 1 % video loss count like 2.5 % audio loss. 33 ms frames.
  public var video = CodecProfile(
    equipmentImpairment: 0, lossRobustness: 10, codecDelayMilliseconds: 33)
  /// The lowest R of levels excellent, good, poor, bad; below the last is very bad. G.107
  /// Annex B user satisfaction: 80 satisfied, 70 some dissatisfied, 60 many, 50 nearly all.
  public var ratingFloors: [Double] = [80, 70, 60, 50]
  /// The highest interarrival jitter of levels excellent, good, poor, bad, milliseconds; above
  /// the last is very bad. 30 ms: Cisco's voice bearer guideline; 50 ms: ITU-T Y.1541 IPDV
  /// bound of classes 0 and 1; 100 and 150 ms: twice and three times that.
  public var jitterCeilingsMilliseconds: [Double] = [30, 50, 100, 150]
  /// A jitter buffer of this many times the RFC 3550 jitter, at least the minimum, adds to the
  /// one-way delay (adaptive buffers aim at a high percentile of the delay variation).
  public var jitterBufferMultiple = 2.0
  public var jitterBufferMinimumMilliseconds = 20.0
  /// One-way delay assumed when no round trip is known (LAN), milliseconds.
  public var unknownOneWayDelayMilliseconds = 0.0
  /// Fewer packets than this in the scoring span: the level is unknown.
  public var minimumPackets: Int64 = 10
  /// Windows whose packets and losses are pooled for the score: 3 windows of 2 s (6 s), so a
  /// single bad window moves the level once instead of swinging it.
  public var scoringWindows = 3
  /// Ticks in a row before the level shown changes (see `LevelDamper`: a steady impairment
  /// scatters across a band's edge): two or more bands worse, one band worse, two or more
  /// bands better (good or excellent), any other better level. At most 255 each.
  public var worsenAfterTicks = 1
  public var worsenOneLevelAfterTicks = 3
  public var improveAfterTicks = 3
  public var improveOneLevelAfterTicks = 30
  /// Receiver reports older than this no longer score tx (RTCP intervals are about 5 s).
  public var feedbackStaleSeconds = 15.0

  public init() {}

  /// What the score of one direction is computed from; carried into the JSON so a level can
  /// be explained.
  public struct Inputs: Sendable, Equatable, Codable {
    public var packets: Int64
    public var lossRatio: Double
    public var jitterMilliseconds: Double
    public var roundTripMilliseconds: Double?
    public var isVideo: Bool

    public init(
      packets: Int64, lossRatio: Double, jitterMilliseconds: Double, roundTripMilliseconds: Double?,
      isVideo: Bool
    ) {
      self.packets = packets
      self.lossRatio = lossRatio
      self.jitterMilliseconds = jitterMilliseconds
      self.roundTripMilliseconds = roundTripMilliseconds
      self.isVideo = isVideo
    }

    enum CodingKeys: String, CodingKey {
      case packets
      case lossRatio = "loss_ratio"
      case jitterMilliseconds = "jitter_ms"
      case roundTripMilliseconds = "rtt_ms"
      case isVideo = "video"
    }
  }

  /// A scored direction: the level before damping, R, MOS and what limited it.
  public struct Score: Sendable, Equatable {
    public var level: QualityLevel
    public var rating: Double?
    public var meanOpinionScore: Double?
    public var oneWayDelayMilliseconds: Double?
    /// The E-model or the jitter bands, whichever was worse.
    public var limitedBy: LimitingFactor?
  }

  /// Scores one direction. Packet counts below `minimumPackets` give `.unknown`.
  public func score(_ inputs: Inputs, enoughPackets: Bool) -> Score {
    guard enoughPackets else {
      return Score(
        level: .unknown, rating: nil, meanOpinionScore: nil, oneWayDelayMilliseconds: nil,
        limitedBy: nil)
    }
    let profile = inputs.isVideo ? video : audio
    let jitterBuffer = max(
      jitterBufferMinimumMilliseconds, jitterBufferMultiple * inputs.jitterMilliseconds)
    let networkDelay = inputs.roundTripMilliseconds.map { $0 / 2 } ?? unknownOneWayDelayMilliseconds
    let oneWay = networkDelay + jitterBuffer + profile.codecDelayMilliseconds
    let rating = EModel.rating(
      delayImpairment: EModel.delayImpairment(oneWayDelayMilliseconds: oneWay),
      equipmentImpairment: EModel.effectiveEquipmentImpairment(
        codecImpairment: profile.equipmentImpairment, lossRobustness: profile.lossRobustness,
        lossPercent: inputs.lossRatio * 100))
    let ratingLevel = level(rating: rating)
    let jitterLevel = level(jitterMilliseconds: inputs.jitterMilliseconds)
    return Score(
      level: max(ratingLevel, jitterLevel), rating: rating,
      meanOpinionScore: EModel.meanOpinionScore(rating: rating), oneWayDelayMilliseconds: oneWay,
      limitedBy: jitterLevel > ratingLevel ? .jitter : .lossDelay)
  }

  public func level(rating: Double) -> QualityLevel {
    for (index, floor) in ratingFloors.enumerated() where rating >= floor {
      return QualityLevel(rawValue: index + 1) ?? .veryBad
    }
    return .veryBad
  }

  public func level(jitterMilliseconds: Double) -> QualityLevel {
    for (index, ceiling) in jitterCeilingsMilliseconds.enumerated()
    where jitterMilliseconds <= ceiling {
      return QualityLevel(rawValue: index + 1) ?? .veryBad
    }
    return .veryBad
  }
}
