/// The ITU-T G.107 E-model, reduced to what a network probe can measure: transmission rating
/// R from one-way delay and packet loss, and the MOS estimate it implies.
public enum EModel {
  /// R0 - Is with every G.107 default (Table 3): 93.2.
  public static let defaultBaseRating = 93.2
  /// G.107 (Cole and Rosenbluth's fit, "Voice over IP performance monitoring", 2001): below
  /// 177.3 ms one-way delay, each millisecond costs 0.024 of R; beyond it 0.11 more.
  static let delaySlope = 0.024
  static let delayKnee = 177.3
  static let delayKneeSlope = 0.11

  /// Id, the delay impairment, for a one-way mouth-to-ear delay in milliseconds.
  public static func delayImpairment(oneWayDelayMilliseconds delay: Double) -> Double {
    let d = max(0, delay)
    return delaySlope * d + (d > delayKnee ? delayKneeSlope * (d - delayKnee) : 0)
  }

  /// Ie,eff (G.107 section 7.4, equation 7-29): the equipment impairment of the codec at a
  /// packet loss of `lossPercent`, with packet-loss robustness `bpl` and burst ratio `burstR`
  /// (1 for random loss).
  public static func effectiveEquipmentImpairment(
    codecImpairment ie: Double, lossRobustness bpl: Double, lossPercent: Double,
    burstRatio burstR: Double = 1
  ) -> Double {
    let ppl = min(100, max(0, lossPercent))
    return ie + (95 - ie) * ppl / (ppl / burstR + bpl)
  }

  /// R = R0 - Is - Id - Ie,eff + A, clamped to 0...100 (G.107 section 7).
  public static func rating(
    baseRating: Double = defaultBaseRating, delayImpairment id: Double,
    equipmentImpairment ie: Double,
    advantage: Double = 0
  ) -> Double {
    min(100, max(0, baseRating - id - ie + advantage))
  }

  /// MOS-CQE from R (G.107 Annex B, equation B-4).
  public static func meanOpinionScore(rating r: Double) -> Double {
    if r <= 0 { return 1 }
    if r >= 100 { return 4.5 }
    return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6
  }
}
