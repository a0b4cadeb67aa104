import Foundation
import XCTest

/// A `storage_path` that is a symbolic link: the agent runs as root and would create and write
/// the history wherever the link points, so the start and `check-config` refuse it in one line.
extension CommandLineTests {
  func testSymbolicLinkAsStoragePathStopsTheStartAndCheckConfig() throws {
    let target = directory.appendingPathComponent("elsewhere.db").path
    let link = directory.appendingPathComponent("history.db").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let config = directory.appendingPathComponent("linked.yaml")
    try Data("listen: \"127.0.0.1:19476\"\nstorage_path: \(link)\n".utf8).write(to: config)
    let refusal =
      "storage_path: \(link) is a symbolic link (to \(target)): the history is never written "
      + "through a link; give the file's own path in storage_path"

    let checked = try run(["check-config", config.path])
    XCTAssertEqual(checked.status, 1)
    XCTAssertEqual(
      checked.standardError, "netquality: error: \(config.path): line 2: \(refusal)\n")

    guard getuid() == 0 else { throw XCTSkip("the start opens a capture on lo first: needs root") }
    let started = try run(["run", "--config", config.path, "--interface", "lo"])
    XCTAssertEqual(started.status, 1)
    XCTAssertEqual(
      started.standardError.split(separator: "\n").last.map(String.init),
      "netquality: error: \(refusal)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: target), "nothing made through the link")
  }
}
