/// What the relay did to one direction: the truth the tests compare receivers against.
/// Every received packet ends in exactly one of dropped, overflow, oversize, forwarded, queued
/// or a send error; `duplicated` copies come on top of `forwarded`.
struct DirectionStats: Sendable {
  var received: Int64 = 0
  /// Dropped by the random loss draw.
  var dropped: Int64 = 0
  /// Dropped because every queue buffer was taken.
  var overflow: Int64 = 0
  /// Dropped because the datagram was larger than a queue buffer.
  var oversize: Int64 = 0
  /// Originals sent (duplicates not included).
  var forwarded: Int64 = 0
  /// Extra copies sent.
  var duplicated: Int64 = 0
  /// Sends the kernel refused: originals (their copies are then not tried) and copies.
  var sendErrors: Int64 = 0
  /// Packets the reorder draw held back (whether or not anything overtook them).
  var reorderHeld: Int64 = 0

  /// Applied delay of the originals sent: the measured time from just after `recvfrom` to just
  /// before `sendto`, not the drawn one, so a late relay shows in it.
  private(set) var delayCount: Int64 = 0
  private(set) var delaySumNanoseconds: Int64 = 0
  private(set) var delayMinNanoseconds: Int64 = .max
  private(set) var delayMaxNanoseconds: Int64 = 0
  /// How much later than due the originals left (applied − drawn): the relay's own error.
  private(set) var overdueSumNanoseconds: Int64 = 0
  private(set) var overdueMaxNanoseconds: Int64 = 0

  mutating func recordForwarded(appliedDelayNanoseconds: Int64, overdueNanoseconds: Int64) {
    forwarded += 1
    delayCount += 1
    delaySumNanoseconds += appliedDelayNanoseconds
    delayMinNanoseconds = min(delayMinNanoseconds, appliedDelayNanoseconds)
    delayMaxNanoseconds = max(delayMaxNanoseconds, appliedDelayNanoseconds)
    overdueSumNanoseconds += overdueNanoseconds
    overdueMaxNanoseconds = max(overdueMaxNanoseconds, overdueNanoseconds)
  }
}

/// One direction in the stats file: counters, the reordering seen and the configuration.
struct DirectionReport: Encodable {
  var stats: DirectionStats
  /// ReorderTracker's counts (not the tracker: a copy would share its set of queued packets,
  /// and the loop's next change would then copy the whole set).
  var reordered: Int64
  var overtaken: Int64
  var queued: Int
  var parameters: ImpairmentParameters

  enum CodingKeys: String, CodingKey {
    case received, dropped, overflow, oversize, forwarded, duplicated, queued, reordered,
      overtaken
    case sendErrors = "send_errors"
    case reorderHeld = "reorder_held"
    case delayCount = "delay_count"
    case delaySum = "delay_sum_ms"
    case delayMin = "delay_min_ms"
    case delayMax = "delay_max_ms"
    case delayMean = "delay_mean_ms"
    case overdueMean = "overdue_mean_ms"
    case overdueMax = "overdue_max_ms"
    case config
  }

  enum ConfigKeys: String, CodingKey {
    case delay = "delay_ms"
    case jitter = "jitter_ms"
    case loss, duplicate, reorder
    case reorderHold = "reorder_ms"
  }

  func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(stats.received, forKey: .received)
    try container.encode(stats.dropped, forKey: .dropped)
    try container.encode(stats.overflow, forKey: .overflow)
    try container.encode(stats.oversize, forKey: .oversize)
    try container.encode(stats.forwarded, forKey: .forwarded)
    try container.encode(stats.duplicated, forKey: .duplicated)
    try container.encode(stats.sendErrors, forKey: .sendErrors)
    try container.encode(queued, forKey: .queued)
    try container.encode(stats.reorderHeld, forKey: .reorderHeld)
    try container.encode(reordered, forKey: .reordered)
    try container.encode(overtaken, forKey: .overtaken)
    let count = stats.delayCount
    try container.encode(count, forKey: .delayCount)
    try container.encode(Self.milliseconds(stats.delaySumNanoseconds), forKey: .delaySum)
    // No packet sent yet: null, not a made-up 0.
    try container.encode(
      count > 0 ? Self.milliseconds(stats.delayMinNanoseconds) : nil, forKey: .delayMin)
    try container.encode(
      count > 0 ? Self.milliseconds(stats.delayMaxNanoseconds) : nil, forKey: .delayMax)
    try container.encode(
      count > 0 ? Self.milliseconds(stats.delaySumNanoseconds / count) : nil, forKey: .delayMean)
    try container.encode(
      count > 0 ? Self.milliseconds(stats.overdueSumNanoseconds / count) : nil,
      forKey: .overdueMean)
    try container.encode(
      count > 0 ? Self.milliseconds(stats.overdueMaxNanoseconds) : nil, forKey: .overdueMax)
    var config = container.nestedContainer(keyedBy: ConfigKeys.self, forKey: .config)
    try config.encode(parameters.delayMilliseconds, forKey: .delay)
    try config.encode(parameters.jitterMilliseconds, forKey: .jitter)
    try config.encode(parameters.lossProbability, forKey: .loss)
    try config.encode(parameters.duplicateProbability, forKey: .duplicate)
    try config.encode(parameters.reorderProbability, forKey: .reorder)
    try config.encode(parameters.reorderHoldMilliseconds, forKey: .reorderHold)
  }

  /// Milliseconds with nanosecond digits: exact, and readable.
  private static func milliseconds(_ nanoseconds: Int64) -> Double {
    Double(nanoseconds) / 1e6
  }
}
