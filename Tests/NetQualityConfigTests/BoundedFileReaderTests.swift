import Foundation
import NetQualityConfig
import XCTest

/// What may stand at a configuration path: a regular file (through a link too) up to the
/// bound; a device, a FIFO, a directory or a larger file is one clear refusal, at once.
final class BoundedFileReaderTests: XCTestCase {
  private var directory = URL(fileURLWithPath: "/nonexistent")

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-reader-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// The refusal reading `path` gives (nil when it reads), and how long it took.
  private func refusal(_ path: String, maximumBytes: Int = 1_024) -> (String?, Double) {
    let started = Date()
    do {
      _ = try BoundedFileReader.read(path: path, maximumBytes: maximumBytes)
      return (nil, Date().timeIntervalSince(started))
    } catch {
      return (error.description, Date().timeIntervalSince(started))
    }
  }

  func testRegularFileAndALinkToOneRead() throws {
    let file = path("netquality.yaml")
    try Data("tick_interval: 2\n".utf8).write(to: URL(fileURLWithPath: file))
    XCTAssertEqual(try BoundedFileReader.read(path: file), Array("tick_interval: 2\n".utf8))
    // Configuration managed as a link (a deployment tool's current release) is common.
    let link = path("current.yaml")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
    XCTAssertEqual(try BoundedFileReader.read(path: link), Array("tick_interval: 2\n".utf8))
    let empty = path("empty.yaml")
    try Data().write(to: URL(fileURLWithPath: empty))
    XCTAssertEqual(try BoundedFileReader.read(path: empty), [])
  }

  func testDevZeroIsRefusedAtOnce() {
    let (reason, seconds) = refusal("/dev/zero")
    XCTAssertEqual(reason, "not a regular file (a character device)")
    XCTAssertLessThan(seconds, 1)
    // Through a link in place of the file: what the link names is what counts.
    let link = path("netquality.yaml")
    XCTAssertNoThrow(
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero"))
    XCTAssertEqual(refusal(link).0, "not a regular file (a character device)")
  }

  func testFIFOWithoutWriterIsRefusedWithoutBlocking() throws {
    let fifo = path("netquality.yaml")
    XCTAssertEqual(mkfifo(fifo, 0o600), 0, String(cString: strerror(errno)))
    let (reason, seconds) = refusal(fifo)
    XCTAssertEqual(reason, "not a regular file (a FIFO)")
    XCTAssertLessThan(seconds, 1)
  }

  func testDirectoryAndMissingFileAreOneLine() {
    XCTAssertEqual(refusal(directory.path).0, "not a regular file (a directory)")
    XCTAssertEqual(refusal(path("absent.yaml")).0, "No such file or directory")
  }

  func testFileOverTheBoundIsRefusedAndOneAtItReads() throws {
    let file = path("big.yaml")
    try Data(repeating: 0x61, count: 1_025).write(to: URL(fileURLWithPath: file))
    XCTAssertEqual(refusal(file).0, "larger than 1024 bytes, the most read from such a file")
    try Data(repeating: 0x61, count: 1_024).write(to: URL(fileURLWithPath: file))
    XCTAssertNil(refusal(file).0)
    // 100 MB, sparse: refused from its size, nothing read.
    let sparse = path("sparse.yaml")
    XCTAssertTrue(FileManager.default.createFile(atPath: sparse, contents: nil))
    XCTAssertEqual(truncate(sparse, 100_000_000), 0)
    let (reason, seconds) = refusal(
      sparse, maximumBytes: BoundedFileReader.maximumConfigurationBytes)
    XCTAssertEqual(reason, "larger than 16 MiB, the most read from such a file")
    XCTAssertLessThan(seconds, 1)
  }

  func testConfigurationLoaderSaysWhyInOneIssue() throws {
    let fifo = path("agent.yaml")
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    XCTAssertThrowsError(try ConfigurationLoader.load(path: fifo)) { error in
      XCTAssertEqual(
        (error as? ConfigurationError)?.description,
        "\(fifo): cannot read: not a regular file (a FIFO)")
    }
    XCTAssertThrowsError(try WebConfigurationLoader.load(path: "/dev/zero")) { error in
      XCTAssertEqual(
        (error as? ConfigurationError)?.description,
        "/dev/zero: cannot read: not a regular file (a character device)")
    }
  }
}
