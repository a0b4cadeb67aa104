import ArgumentParser
import Foundation
import NetQualityCore
import NetQualitySynth

struct GenerateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract:
      "Write a synthetic capture of G.711 calls with chosen loss, duplicates and reordering.",
    discussion: "Deterministic for a seed. Used for the sample in the README and the benchmark."
  )

  @Option(name: .shortAndLong, help: "Output pcap file.")
  var output: String

  @Option(help: "Number of RTP streams (two per call).")
  var streams = 4

  @Option(help: "Total RTP packets.")
  var packets = 3000

  @Option(help: "Percent of packets lost.")
  var loss = 0.0

  @Option(help: "Percent of packets duplicated.")
  var duplicate = 0.0

  @Option(help: "Percent of packets delivered one packet late.")
  var reorder = 0.0

  @Option(help: "Arrival noise, up to this many milliseconds.")
  var jitter = 0.0

  @Option(help: "Seed of the pseudo-random impairments.")
  var seed: UInt64 = 1

  @Option(
    help: ArgumentHelp(
      "A network outage: nothing gets through from START seconds for SECONDS.",
      valueName: "START:SECONDS"))
  var outage: String?

  @Option(
    name: .customLong("restart"),
    help: ArgumentHelp(
      "Every sender restarts sequence and timestamp (same SSRC) at this second (repeatable).",
      valueName: "SECONDS"))
  var restarts: [Double] = []

  func run() throws {
    guard streams > 0, packets > 0 else {
      throw fail("--streams and --packets must be positive", code: 2)
    }
    for (name, value) in [("loss", loss), ("duplicate", duplicate), ("reorder", reorder)]
    where !(0...100).contains(value) {
      throw fail("--\(name) \(value): a percentage must be between 0 and 100", code: 2)
    }
    var outageWindow: (start: Double, seconds: Double)?
    if let outage {
      let parts = outage.split(separator: ":").compactMap { Double($0) }
      guard parts.count == 2, parts[0] >= 0, parts[1] > 0 else {
        throw fail("--outage \(outage): expected START:SECONDS, e.g. 10:15", code: 2)
      }
      outageWindow = (parts[0], parts[1])
    }
    guard FileManager.default.createFile(atPath: output, contents: nil),
      let handle = FileHandle(forWritingAtPath: output)
    else {
      throw fail("cannot create \(output): \(String(cString: strerror(errno)))")
    }
    defer { try? handle.close() }
    var traffic = SyntheticTraffic(
      streams: streams, totalPackets: packets, lossPercent: loss, duplicatePercent: duplicate,
      reorderPercent: reorder, jitterMilliseconds: jitter, seed: seed)
    traffic.outage = outageWindow
    guard restarts.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
      throw fail("--restart: seconds must be 0 or more", code: 2)
    }
    traffic.restartSeconds = restarts
    var writer = PcapWriter()
    var writeError: Error?
    traffic.generate { frame, time in
      guard writeError == nil else { return }
      writer.append(frame, at: time)
      if writer.bytes.count >= 1 << 20 {
        do { try handle.write(contentsOf: writer.drain()) } catch { writeError = error }
      }
    }
    do {
      if writeError == nil { try handle.write(contentsOf: writer.drain()) }
    } catch {
      writeError = error
    }
    if let writeError {
      throw fail("cannot write \(output): \(writeError.localizedDescription)")
    }
  }
}
