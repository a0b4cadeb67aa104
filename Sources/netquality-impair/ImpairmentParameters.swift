/// The impairment of one direction, as configured on the command line.
struct ImpairmentParameters: Sendable, Equatable {
  /// Fixed one-way delay added to every packet.
  var delayMilliseconds: Double = 0
  /// Half-width of the uniform jitter: each packet's delay is drawn from
  /// [delay − jitter, delay + jitter], never below 0.
  var jitterMilliseconds: Double = 0
  /// Probability (0…1) that a packet is dropped, drawn independently per packet.
  var lossProbability: Double = 0
  /// Probability (0…1) that a packet that is not dropped is sent twice.
  var duplicateProbability: Double = 0
  /// Probability (0…1) that a packet is held `reorderHoldMilliseconds` longer than its delay,
  /// so the packets behind it overtake it.
  var reorderProbability: Double = 0
  /// The extra hold of a reordered packet. 25 ms is a little over one packet interval of 20 ms
  /// media, so a held packet is overtaken by one or two others.
  var reorderHoldMilliseconds: Double = 25

  /// The first value that cannot be used, as a line naming the flag, or nil when all are valid.
  func problem(direction: Direction) -> String? {
    let prefix = "--\(direction.name)-"
    let durations = [
      ("delay-ms", delayMilliseconds), ("jitter-ms", jitterMilliseconds),
      ("reorder-ms", reorderHoldMilliseconds),
    ]
    for (flag, value) in durations where !(value.isFinite && value >= 0 && value <= 3_600_000) {
      return "\(prefix)\(flag) \(value): must be a number of milliseconds from 0 to 3600000"
    }
    let probabilities = [
      ("loss", lossProbability), ("duplicate", duplicateProbability),
      ("reorder", reorderProbability),
    ]
    for (flag, value) in probabilities where !(value >= 0 && value <= 1) {
      return "\(prefix)\(flag) \(value): must be a probability from 0 to 1 (0.02 is 2 %)"
    }
    return nil
  }
}
