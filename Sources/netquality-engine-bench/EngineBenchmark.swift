import Foundation
import NetQualityCapture
import NetQualityCore

/// Times the analysis engine alone: the capture is read once into memory, then fed to a fresh
/// `StreamAnalyzer` several times. As libpcap does, each batch of frames is first copied into a
/// small buffer (so they are in the cache, as after libpcap's read), and only the engine's work
/// on them is timed. Without file reading, system calls and the memory traffic of a 400 MB
/// buffer, the figure is steadier than end-to-end timing for comparing two builds of the
/// per-packet path, though on a shared virtual machine only differences of more than about
/// 10 % stand out from the noise (the end-to-end comparison with tshark and libpcap is
/// `scripts/bench.sh`).
///
///     netquality-engine-bench FILE [ROUNDS]
///     netquality-engine-bench --feed FILE
///     netquality-engine-bench --churn PEERS_PER_SECOND LIFETIME SECONDS   (ChurnTickBenchmark)
///
/// `--feed` streams the file through the analyser once, as `netquality analyze` does (libpcap
/// reading, the per-packet path, the report), and prints the report's stream and packet counts:
/// the allocation check (scripts/check-allocations.sh) counts its heap allocations, in a release
/// build of this small target instead of the whole agent's.
@main
struct EngineBenchmark {
  static func main() {
    let arguments = CommandLine.arguments
    if arguments.count == 3 && arguments[1] == "--feed" {
      feedOnce(arguments[2])
      return
    }
    if arguments.count == 5 && arguments[1] == "--churn" {
      let numbers = arguments[2...].compactMap { Int($0) }.filter { $0 > 0 }
      guard numbers.count == 3 else {
        printError("usage: netquality-engine-bench --churn PEERS_PER_SECOND LIFETIME SECONDS")
        exit(2)
      }
      ChurnTickBenchmark.run(
        peersPerSecond: numbers[0], lifetimeSeconds: numbers[1], seconds: numbers[2])
      return
    }
    guard arguments.count >= 2, arguments.count <= 3 else {
      printError("usage: netquality-engine-bench FILE [ROUNDS]")
      exit(2)
    }
    let rounds = arguments.count == 3 ? Int(arguments[2]) ?? 0 : 7
    guard rounds > 0 else {
      printError("ROUNDS must be a positive number")
      exit(2)
    }
    let capture: LoadedCapture
    do {
      capture = try LoadedCapture(path: arguments[1])
    } catch {
      printError("\(error)")
      exit(1)
    }
    guard capture.frameCount > 0 else {
      printError("\(arguments[1]): no frames to time")
      exit(1)
    }
    var nanosecondsPerRound: [Double] = []
    var streams = 0
    for _ in 0..<rounds {
      var analyzer = StreamAnalyzer()
      nanosecondsPerRound.append(Double(capture.feed(&analyzer)))
      streams = analyzer.report().streams.count
    }
    nanosecondsPerRound.sort()
    let packets = Double(capture.frameCount)
    let best = nanosecondsPerRound[0] / packets
    let median = nanosecondsPerRound[nanosecondsPerRound.count / 2] / packets
    print(
      "\(capture.frameCount) packets, \(streams) streams, \(rounds) rounds: "
        + "best \(format(best)) ns/packet, median \(format(median)) ns/packet "
        + "(\(format(1e3 / best)) M packets/s)")
  }

  static func feedOnce(_ path: String) {
    do {
      let reader = try PcapFileReader(path: path)
      var analyzer = StreamAnalyzer()
      if case .stoppedEarly(let reason) = reader.feed(&analyzer) {
        printError("\(path): reading stopped early: \(reason)")
      }
      let report = analyzer.report()
      print("\(report.streams.count) streams, \(report.capture.rtpPackets) RTP packets")
    } catch {
      printError("\(error)")
      exit(1)
    }
  }

  static func format(_ value: Double) -> String { String(format: "%.1f", value) }

  static func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}

/// Every frame of a capture, back to back in one buffer.
struct LoadedCapture {
  var bytes: [UInt8] = []
  var frames: [(offset: Int, captured: Int, original: Int, time: CaptureTime)] = []
  let linkType: LinkType

  var frameCount: Int { frames.count }

  init(path: String) throws {
    let reader = try PcapFileReader(path: path)
    linkType = reader.linkType
    var bytes: [UInt8] = []
    var frames: [(offset: Int, captured: Int, original: Int, time: CaptureTime)] = []
    let completion = reader.forEachFrame { frame, originalLength, time in
      frames.append((bytes.count, frame.count, originalLength, time))
      bytes.append(contentsOf: frame)
    }
    if case .stoppedEarly(let reason) = completion {
      EngineBenchmark.printError(
        "\(path): reading stopped early, timing what came before: \(reason)")
    }
    self.bytes = bytes
    self.frames = frames
  }

  /// Frames per batch: about 60 KB of typical RTP, well inside a core's L2 cache.
  static let batchFrames = 256

  /// Feeds every frame, batch by batch; returns the nanoseconds spent in the engine.
  func feed(_ analyzer: inout StreamAnalyzer) -> UInt64 {
    var engineNanoseconds: UInt64 = 0
    var scratch: [UInt8] = []
    bytes.withUnsafeBytes { buffer in
      var first = 0
      while first < frames.count {
        let last = min(first + Self.batchFrames, frames.count) - 1
        let start = frames[first].offset
        let end = frames[last].offset + frames[last].captured
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: buffer[start..<end])
        scratch.withUnsafeBytes { batch in
          let began = DispatchTime.now().uptimeNanoseconds
          for frame in frames[first...last] {
            let offset = frame.offset - start
            analyzer.ingest(
              frame: UnsafeRawBufferPointer(rebasing: batch[offset..<(offset + frame.captured)]),
              originalLength: frame.original, linkType: linkType, at: frame.time)
          }
          engineNanoseconds += DispatchTime.now().uptimeNanoseconds - began
        }
        first = last + 1
      }
    }
    return engineNanoseconds
  }
}
