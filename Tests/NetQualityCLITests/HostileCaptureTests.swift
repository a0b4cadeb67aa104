import Foundation
import NetQualitySynth
import XCTest

/// `analyze` in every mode on captures whose clocks misbehave, on every real capture in
/// ../shared/pcaps, and at the ends of the accepted `--interval`: each run ends in seconds,
/// with bounded output and no overflow trap.
extension CommandLineTests {
  /// Every output mode of `analyze`.
  static let modes: [[String]] = [
    [], ["--format", "json"], ["--timeline"], ["--timeline", "--format", "jsonl"], ["--calls"],
    ["--calls", "--format", "json"],
  ]
  /// Ample for a debug build reading a small capture; a hang or a tick flood overruns it.
  static let secondsPerRun = 30.0
  /// A timeline of a few thousand packets, ticking every 0.1 s through the six minutes each
  /// silence takes to be forgotten, fits well under this; a tick per 2 s across a jump of
  /// years (gigabytes) would not.
  static let maximumOutputBytes = 32 << 20

  func analyseInEveryMode(_ path: String, extra: [String] = []) throws {
    for mode in Self.modes {
      let arguments = ["analyze", path] + mode + extra
      let process = try BinaryProcess(binary: binary, arguments: arguments, directory: directory)
      let started = Date()
      guard process.waitForExit(seconds: Self.secondsPerRun) else {
        process.stop()
        XCTFail("\(process.commandLine) did not finish within \(Self.secondsPerRun) s")
        continue
      }
      let seconds = Date().timeIntervalSince(started)
      XCTAssertEqual(process.status, 0, "\(process.commandLine): \(process.standardError)")
      XCTAssertFalse(process.standardError.contains("Fatal error"), process.standardError)
      XCTAssertLessThan(
        process.standardOutputBytes, Self.maximumOutputBytes,
        "\(process.commandLine) wrote \(process.standardOutputBytes) bytes in \(seconds) s")
    }
  }

  func testCapturesWithHostileTimestampsAnalyseInEveryMode() throws {
    for capture in HostileCaptures.all {
      let url = directory.appendingPathComponent(capture.name)
      try Data(capture.bytes).write(to: url)
      try analyseInEveryMode(url.path)
      try analyseInEveryMode(url.path, extra: ["--interval", "0.1"])
      try analyseInEveryMode(url.path, extra: ["--interval", "3600"])
    }
  }

  func testYearsOfSilenceAreSkippedAndSaidSo() throws {
    let capture = try XCTUnwrap(HostileCaptures.all.first { $0.name == "years-forward.pcapng" })
    let url = directory.appendingPathComponent(capture.name)
    try Data(capture.bytes).write(to: url)
    let result = try run(["analyze", url.path, "--timeline", "--format", "jsonl"])
    XCTAssertEqual(result.status, 0, result.standardError)
    let records = try result.standardOutput.split(separator: "\n").map {
      try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let skipped = records.filter { $0["type"] as? String == "skipped" }
    // Five jumps of seven years: five skipped stretches, each of about 7 years / 2 s ticks.
    XCTAssertEqual(skipped.count, 5)
    for record in skipped {
      let ticks = try XCTUnwrap(record["ticks"] as? Int)
      XCTAssertTrue((110_000_000...111_000_000).contains(ticks), "\(ticks)")
    }
    let times = records.compactMap { $0["type"] as? String == "tick" ? $0["time"] as? Double : nil }
    XCTAssertEqual(times, times.sorted())
  }

  func testCapturesSteppingBackYearsAreFollowedAndCounted() throws {
    let capture = try XCTUnwrap(HostileCaptures.all.first { $0.name == "years-backward.pcapng" })
    let url = directory.appendingPathComponent(capture.name)
    try Data(capture.bytes).write(to: url)
    let result = try run(["analyze", url.path, "--format", "json"])
    XCTAssertEqual(result.status, 0, result.standardError)
    let document = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let capturePart = try XCTUnwrap(document["capture"] as? [String: Any])
    XCTAssertEqual(capturePart["clock_steps"] as? Int, 5)
    let streams = try XCTUnwrap(document["streams"] as? [[String: Any]])
    XCTAssertEqual(streams.count, 2)
    for stream in streams {
      // Packets 20 ms apart on each side of every step: no gap, no jitter from the steps.
      XCTAssertLessThan(try XCTUnwrap(stream["max_delta_ms"] as? Double), 25)
      XCTAssertLessThan(try XCTUnwrap(stream["max_jitter_ms"] as? Double), 1)
      XCTAssertEqual(stream["lost"] as? Int, 0)
    }
  }

  func testIntervalsOutsideTheAcceptedRangeAreRefusedInOneLine() throws {
    let capture = try XCTUnwrap(HostileCaptures.all.first)
    let url = directory.appendingPathComponent(capture.name)
    try Data(capture.bytes).write(to: url)
    for interval in ["1e10", "3600.5", "0", "-2", "0.05", "nan", "inf"] {
      let result = try run(["analyze", url.path, "--timeline", "--interval=\(interval)"])
      XCTAssertEqual(result.status, 2, interval)
      XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
      XCTAssertTrue(result.standardError.hasPrefix("netquality: error: "), result.standardError)
      XCTAssertEqual(result.standardOutput, "")
    }
  }

  func testEverySharedCaptureAnalysesInEveryMode() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../../shared/pcaps").standardized
    guard
      let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter({
        $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng")
      }), !names.isEmpty
    else { throw XCTSkip("no shared captures at \(folder.path)") }
    for name in names.sorted() {
      try analyseInEveryMode(folder.appendingPathComponent(name).path)
    }
  }
}
