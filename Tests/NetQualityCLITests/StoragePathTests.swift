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

  /// Issue 39: a link among the directories of `storage_path` was followed wherever it came
  /// from. One in a directory anyone can write (as `/tmp`) is refused; one that only root
  /// could have placed is followed.
  func testADirectoryLinkOthersCouldHavePlacedIsRefused() throws {
    let real = directory.appendingPathComponent("real").path
    try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
    for (holder, mode, refused) in [("open", mode_t(0o777), true), ("guarded", 0o755, false)] {
      let parent = directory.appendingPathComponent(holder).path
      try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
      XCTAssertEqual(chmod(parent, mode), 0)
      let link = parent + "/linked"
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
      let config = directory.appendingPathComponent("\(holder).yaml")
      try Data("listen: \"127.0.0.1:19476\"\nstorage_path: \(link)/history.db\n".utf8).write(
        to: config)
      let checked = try run(["check-config", config.path])
      if refused {
        XCTAssertEqual(checked.status, 1)
        XCTAssertEqual(
          checked.standardError,
          "netquality: error: \(config.path): line 2: storage_path: \(link) is a symbolic link "
            + "(to \(real)) and \(parent) is writable by its group or others: the history is "
            + "never written through a link someone else could have placed; give the real "
            + "directory in storage_path\n")
      } else {
        XCTAssertEqual(checked.status, 0, checked.standardError)
      }
    }
  }
}
