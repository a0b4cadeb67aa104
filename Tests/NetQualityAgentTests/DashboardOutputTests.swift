import Foundation
import XCTest

@testable import NetQualityAgent

/// The dashboard file on a temporary directory: rotation by size, the path followed when
/// logrotate moves the file, and failures that are logged once and counted.
final class DashboardOutputTests: XCTestCase {
  /// A fresh directory, removed when the test ends.
  static func directory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("netquality-dashboard-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }

  /// A frame of exactly `bytes` bytes that says which it is on its first line.
  static func frame(_ number: Int, bytes: Int = 700) -> String {
    let head = "=== frame \(number)\n"
    return head + String(repeating: "x", count: bytes - head.utf8.count - 1) + "\n"
  }

  /// The files in `directory`, by name, with their sizes.
  static func sizes(_ directory: URL) throws -> [String: Int] {
    var result: [String: Int] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
      let attributes = try FileManager.default.attributesOfItem(
        atPath: directory.appendingPathComponent(name).path)
      result[name] = (attributes[.size] as? NSNumber)?.intValue
    }
    return result
  }

  static func firstLine(_ url: URL) throws -> String {
    String(try String(contentsOf: url, encoding: .utf8).prefix { $0 != "\n" })
  }

  func testFramesPastTheLimitLeaveTheFileAndKeepRotatedFilesTheOldestDeleted() throws {
    let directory = try Self.directory(self)
    let path = directory.appendingPathComponent("dashboard.txt")
    let log = CapturedLog()
    let output = try DashboardOutput(
      path: path.path, rotation: .init(maxBytes: 10_000, keep: 3), logger: log.logger)
    // 14 frames of 700 bytes fit 10,000; the 15th starts a new file.
    for number in 0..<100 { output.write(Self.frame(number)) }
    XCTAssertEqual(
      try Self.sizes(directory),
      [
        "dashboard.txt": 2 * 700, "dashboard.txt.1": 14 * 700, "dashboard.txt.2": 14 * 700,
        "dashboard.txt.3": 14 * 700,
      ])
    XCTAssertEqual(try Self.firstLine(path), "=== frame 98")
    XCTAssertEqual(
      try Self.firstLine(directory.appendingPathComponent("dashboard.txt.1")), "=== frame 84")
    XCTAssertEqual(
      try Self.firstLine(directory.appendingPathComponent("dashboard.txt.3")), "=== frame 56")
    XCTAssertEqual(output.counters.rotations.load(ordering: .relaxed), 7)
    XCTAssertEqual(output.counters.rotationFailures.load(ordering: .relaxed), 0)
    XCTAssertEqual(output.counters.failedWrites.load(ordering: .relaxed), 0)
    XCTAssertEqual(log.lines.count, 0, "a rotation is routine: nothing logged")
  }

  func testKeepZeroStartsTheFileAgainAndAFrameLargerThanTheLimitGetsAFileOfItsOwn() throws {
    let directory = try Self.directory(self)
    let path = directory.appendingPathComponent("dashboard.txt")
    let output = try DashboardOutput(
      path: path.path, rotation: .init(maxBytes: 1_000, keep: 0), logger: CapturedLog().logger)
    for number in 0..<3 { output.write(Self.frame(number, bytes: 600)) }
    XCTAssertEqual(try Self.sizes(directory), ["dashboard.txt": 600])
    XCTAssertEqual(try Self.firstLine(path), "=== frame 2")
    output.write(Self.frame(3, bytes: 5_000))
    output.write(Self.frame(4, bytes: 5_000))
    XCTAssertEqual(try Self.sizes(directory), ["dashboard.txt": 5_000])
    XCTAssertEqual(output.counters.rotations.load(ordering: .relaxed), 4)
  }

  func testAFileMovedAwayOrDeletedIsFollowedByANewOneAtThePath() throws {
    let directory = try Self.directory(self)
    let path = directory.appendingPathComponent("dashboard.txt")
    let moved = directory.appendingPathComponent("dashboard.txt-20260101")
    let log = CapturedLog()
    let output = try DashboardOutput(path: path.path, logger: log.logger)
    output.write(Self.frame(1))
    // logrotate without copytruncate: rename, and no signal.
    try FileManager.default.moveItem(at: path, to: moved)
    output.write(Self.frame(2))
    XCTAssertEqual(
      try Self.sizes(directory), ["dashboard.txt": 700, "dashboard.txt-20260101": 700])
    XCTAssertEqual(try Self.firstLine(path), "=== frame 2")
    XCTAssertEqual(try Self.firstLine(moved), "=== frame 1")
    try FileManager.default.removeItem(at: path)
    output.write(Self.frame(3))
    XCTAssertEqual(try Self.firstLine(path), "=== frame 3")
    // copytruncate: the same file emptied; O_APPEND starts it again at 0, without a hole.
    XCTAssertEqual(truncate(path.path, 0), 0)
    output.write(Self.frame(4))
    XCTAssertEqual(try Self.sizes(directory)["dashboard.txt"], 700)
    XCTAssertEqual(
      log.lines.map(\.message),
      Array(
        repeating: "the dashboard file \(path.path) was moved or removed; writing a new one",
        count: 2))
  }

  func testARenameThatFailsIsLoggedOnceCountedAndTriedAgainNextFrame() throws {
    let directory = try Self.directory(self)
    let path = directory.appendingPathComponent("dashboard.txt")
    // A directory where the rotated file goes: the rename fails (EISDIR), even for root.
    let blocker = directory.appendingPathComponent("dashboard.txt.1")
    try FileManager.default.createDirectory(
      at: blocker.appendingPathComponent("inside"), withIntermediateDirectories: true)
    let log = CapturedLog()
    let output = try DashboardOutput(
      path: path.path, rotation: .init(maxBytes: 1_000, keep: 1), logger: log.logger)
    for number in 0..<5 { output.write(Self.frame(number, bytes: 600)) }
    XCTAssertEqual(try Self.sizes(directory)["dashboard.txt"], 5 * 600, "nothing lost")
    XCTAssertEqual(output.counters.rotationFailures.load(ordering: .relaxed), 4)
    XCTAssertEqual(output.counters.rotations.load(ordering: .relaxed), 0)
    XCTAssertEqual(log.lines.count, 1)
    XCTAssertEqual(log.lines.first?.level, .error)
    XCTAssertTrue(
      log.lines.first?.message.hasPrefix("cannot rotate the dashboard file \(path.path): ")
        ?? false,
      log.lines.first?.message ?? "")
    try FileManager.default.removeItem(at: blocker)
    output.write(Self.frame(5, bytes: 600))
    XCTAssertEqual(try Self.sizes(directory), ["dashboard.txt": 600, "dashboard.txt.1": 3_000])
    XCTAssertEqual(output.counters.rotations.load(ordering: .relaxed), 1)
    XCTAssertEqual(
      log.lines.map(\.message).last, "rotating the dashboard file \(path.path) again")
  }

  func testCountersOutliveTheOutputAReloadReplaces() throws {
    let directory = try Self.directory(self)
    let path = directory.appendingPathComponent("dashboard.txt").path
    let counters = DashboardOutput.Counters()
    for _ in 0..<2 {
      let output = try DashboardOutput(
        path: path, rotation: .init(maxBytes: 1_000, keep: 2), counters: counters,
        logger: CapturedLog().logger)
      for number in 0..<3 { output.write(Self.frame(number, bytes: 600)) }
    }
    // Six frames of 600 bytes, one a file: five rotations, whichever output made them.
    XCTAssertEqual(counters.rotations.load(ordering: .relaxed), 5)
    XCTAssertEqual(
      try Self.sizes(directory),
      ["dashboard.txt": 600, "dashboard.txt.1": 600, "dashboard.txt.2": 600])
  }
}
