import NetQualityCore
import NetQualityStoreTestSupport

/// The figures of one peer over some of a script's ticks, computed by hand from the values
/// written: what the rollup and the report must arrive at.
struct ScriptTally {
  /// Count, sum, min and max of a figure that may be missing.
  struct Figure {
    var count = 0
    var sum = 0.0
    var min: Double?
    var max: Double?

    var average: Double? { count == 0 ? nil : sum / Double(count) }

    mutating func add(_ value: Double?) {
      guard let value else { return }
      count += 1
      sum += value
      min = Swift.min(min ?? value, value)
      max = Swift.max(max ?? value, value)
    }
  }

  var ticks = 0
  var seconds = 0.0
  var txLevelSeconds = [Double](repeating: 0, count: QualityLevel.allCases.count)
  var rxLevelSeconds = [Double](repeating: 0, count: QualityLevel.allCases.count)
  var txLevelMax = 0
  var rxLevelMax = 0
  var txMOS = Figure()
  var rxMOS = Figure()
  var txLoss = Figure()
  var rxLoss = Figure()
  var txJitter = Figure()
  var rxJitter = Figure()
  var roundTrip = Figure()
  var rxPackets: Int64 = 0
  var rxLost: Int64 = 0
  var txPackets: Int64 = 0

  init(_ script: TickScript, peer: Int, ticks: [Int]) {
    for tick in ticks {
      let values = script.values(tick: tick, peer: peer)
      self.ticks += 1
      seconds += script.intervalSeconds
      txLevelSeconds[values.txLevel.rawValue] += script.intervalSeconds
      rxLevelSeconds[values.rxLevel.rawValue] += script.intervalSeconds
      txLevelMax = max(txLevelMax, values.txLevel.rawValue)
      rxLevelMax = max(rxLevelMax, values.rxLevel.rawValue)
      txMOS.add(values.txMOS)
      rxMOS.add(values.rxMOS)
      txLoss.add(values.txLossRatio)
      rxLoss.add(values.rxLossRatio)
      txJitter.add(values.txJitterMilliseconds)
      rxJitter.add(values.rxJitterMilliseconds)
      roundTrip.add(values.roundTripMilliseconds)
      rxPackets += values.rxPackets
      rxLost += values.rxLost
      txPackets += values.txPackets
    }
  }

  /// How the report ranks a minute: highest level either way, then the lowest MOS (5 when
  /// there is none).
  var worstKey: (level: Int, mos: Double) {
    (max(txLevelMax, rxLevelMax), min(txMOS.min ?? 5, rxMOS.min ?? 5))
  }
}

extension TickScript {
  /// A peer's minutes in [from, to) that have ticks, with their tallies, worst first as the
  /// report ranks them.
  func minutesWorstFirst(peer: Int, from: Double, to: Double) -> [(
    minute: Double, tally: ScriptTally
  )] {
    stride(from: from, to: to, by: 60).map { minute in
      (minute, ScriptTally(self, peer: peer, ticks: ticks(from: minute, to: minute + 60)))
    }.filter { $0.tally.ticks > 0 }.sorted { a, b in
      let (left, right) = (a.tally.worstKey, b.tally.worstKey)
      if left.level != right.level { return left.level > right.level }
      if left.mos != right.mos { return left.mos < right.mos }
      return a.minute < b.minute
    }
  }
}
