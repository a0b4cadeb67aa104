import Foundation
import GRDB
import NetQualityCore
import NetQualityExport
import NetQualityStore

/// The writing part of the benchmark: simulated ticks written and maintained exactly as the
/// recorder does, each tick's write and maintenance timed (wall and CPU).
struct WriteBenchmark {
  var options: BenchOptions
  var database: DatabaseQueue

  /// Per tick: wall and CPU seconds of the write and of the maintenance after it.
  private struct Timings {
    var writeWall: [Double] = []
    var writeCPU: [Double] = []
    var maintenanceWall: [Double] = []
    var maintenanceCPU: [Double] = []
  }

  func run() throws -> [(String, String)] {
    let start = HistoryBenchmark.start
    let writer = try HistoryWriter(
      database: database, kind: "agent", name: "bench", version: "bench", startedAt: start)
    let maintenance = HistoryMaintenance(
      rawRetentionSeconds: options.rawRetentionSeconds,
      aggregateRetentionSeconds: options.aggregateRetentionSeconds, maxBytes: 0)
    var simulator = PeerSimulator(peers: options.peers)
    let interval = simulator.intervalSeconds
    let ticks = max(1, Int((options.days * 86_400 / interval).rounded()))
    print(
      "history benchmark: \(options.peers) peers, \(format(options.days, 2)) days simulated "
        + "(\(ticks) ticks at \(format(interval, 0)) s), retention raw "
        + "\(format(options.rawRetentionSeconds / 3600, 0)) h, minutes "
        + "\(format(options.aggregateRetentionSeconds / 86_400, 0)) days")

    var timings = Timings()
    var minutesAggregated = 0
    var rawRowsDeleted = 0
    var aggregateRowsDeleted = 0
    let wall = Stopwatch()
    let progressEvery = max(1, Int(6 * 3600 / interval))
    for index in 0..<ticks {
      let time = CaptureTime(
        nanosecondsSinceEpoch: Int64(start + Double(index) * interval) * 1_000_000_000)
      let (snapshot, events) = simulator.tick(at: time)

      let writing = Stopwatch()
      try writer.write(
        HistoryTick(snapshot: snapshot, events: events, renderCall: CallsJSON.recordText))
      timings.writeWall.append(writing.wallSeconds)
      timings.writeCPU.append(writing.cpuSeconds)

      let maintaining = Stopwatch()
      var pass: HistoryMaintenance.Pass
      repeat {
        pass = try maintenance.run(database)
        minutesAggregated += pass.minutesAggregated
        rawRowsDeleted += pass.rawRowsDeleted
        aggregateRowsDeleted += pass.aggregateRowsDeleted
      } while pass.behind
      timings.maintenanceWall.append(maintaining.wallSeconds)
      timings.maintenanceCPU.append(maintaining.cpuSeconds)

      if (index + 1) % progressEvery == 0 {
        progress(done: index + 1, of: ticks, elapsedSeconds: wall.wallSeconds, timings)
      }
    }
    let wallSeconds = wall.wallSeconds

    let rows = writer.rowsWritten
    let rowsWritten = rows.values.reduce(0, +)
    let writeTotal = timings.writeWall.reduce(0, +)
    let maintenanceTotal = timings.maintenanceWall.reduce(0, +)
    let writeMean = writeTotal / Double(ticks)
    let maintenanceMean = maintenanceTotal / Double(ticks)
    let share = (writeMean + maintenanceMean) / interval
    let cpuShare =
      (timings.writeCPU.reduce(0, +) + timings.maintenanceCPU.reduce(0, +)) / Double(ticks)
      / interval
    print("ticks: \(ticks)")
    print(
      "rows written: \(rowsWritten) (peer_ticks \(rows["peer_ticks"] ?? 0), ticks "
        + "\(rows["ticks"] ?? 0), events \(rows["events"] ?? 0)); maintenance: "
        + "\(minutesAggregated) minutes aggregated, \(rawRowsDeleted) raw rows and "
        + "\(aggregateRowsDeleted) aggregate rows deleted")
    print(
      "write: \(format(writeTotal, 1)) s total, per tick mean \(format(writeMean * 1e3, 2)) ms, "
        + "p99 \(format(percentile(timings.writeWall, 0.99) * 1e3, 2)) ms, max "
        + "\(format((timings.writeWall.max() ?? 0) * 1e3, 1)) ms; CPU mean "
        + "\(format(mean(timings.writeCPU) * 1e3, 2)) ms")
    print(
      "maintenance: \(format(maintenanceTotal, 1)) s total, per tick mean "
        + "\(format(maintenanceMean * 1e3, 2)) ms, p99 "
        + "\(format(percentile(timings.maintenanceWall, 0.99) * 1e3, 2)) ms, max "
        + "\(format((timings.maintenanceWall.max() ?? 0) * 1e3, 1)) ms; CPU mean "
        + "\(format(mean(timings.maintenanceCPU) * 1e3, 2)) ms")
    print(
      "share of one core at a tick per \(format(interval, 0)) s: \(format(share * 100, 2)) % "
        + "by wall time of write and maintenance, \(format(cpuShare * 100, 2)) % by CPU time")
    print("wall time of the simulation: \(format(wallSeconds, 0)) s")
    return [
      ("days", format(options.days, 4)), ("ticks", "\(ticks)"),
      ("rows_written", "\(rowsWritten)"), ("write_seconds_total", format(writeTotal, 3)),
      ("write_seconds_mean", format(writeMean, 6)),
      ("write_seconds_p99", format(percentile(timings.writeWall, 0.99), 6)),
      ("write_cpu_seconds_mean", format(mean(timings.writeCPU), 6)),
      ("maintenance_seconds_total", format(maintenanceTotal, 3)),
      ("maintenance_seconds_mean", format(maintenanceMean, 6)),
      ("maintenance_cpu_seconds_mean", format(mean(timings.maintenanceCPU), 6)),
      ("core_share_wall", format(share, 5)), ("core_share_cpu", format(cpuShare, 5)),
      ("wall_seconds", format(wallSeconds, 1)),
    ]
  }

  /// A line on stderr every 6 h of simulated time.
  private func progress(done: Int, of ticks: Int, elapsedSeconds: Double, _ timings: Timings) {
    let count = Int(6 * 3600 / 2.0)
    let hours = Double(done) * 2 / 3600
    let remaining = elapsedSeconds * Double(ticks - done) / Double(done)
    var line = "  \(format(hours, 0)) h simulated, \(format(elapsedSeconds, 0)) s elapsed, "
    line += "about \(format(remaining, 0)) s to go; the last 6 h per tick: write "
    line += "\(format(mean(timings.writeWall.suffix(count)) * 1e3, 2)) ms (CPU "
    line += "\(format(mean(timings.writeCPU.suffix(count)) * 1e3, 2))), maintenance "
    line += "\(format(mean(timings.maintenanceWall.suffix(count)) * 1e3, 2)) ms (CPU "
    line += "\(format(mean(timings.maintenanceCPU.suffix(count)) * 1e3, 2)))\n"
    FileHandle.standardError.write(Data(line.utf8))
  }

  private func mean(_ values: some Collection<Double>) -> Double {
    values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
  }

  private func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
  }

  private func format(_ value: Double, _ places: Int) -> String {
    HistoryBenchmark.format(value, places)
  }
}
