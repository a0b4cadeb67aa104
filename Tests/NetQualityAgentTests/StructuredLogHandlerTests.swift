import Foundation
import Logging
import XCTest

@testable import NetQualityAgent

/// Log lines as exporters write theirs: logfmt or JSON, a UTC time to the millisecond, slog's
/// level names, the metadata as keys, values quoted and escaped where they must be.
final class StructuredLogHandlerTests: XCTestCase {
  let time = Date(timeIntervalSince1970: 1_795_615_400.123)

  func testLogfmtQuotesWhatMustBeQuoted() {
    let line = StructuredLogHandler.line(
      format: .logfmt, time: time, level: .warning, message: "peer 10.0.0.1 disconnected",
      metadata: ["peer": "10.0.0.1", "event": "disconnected", "note": "a \"b\"=c\nd"])
    XCTAssertEqual(
      line,
      #"time=2026-11-25T14:03:20.123Z level=WARN msg="peer 10.0.0.1 disconnected" "#
        + #"event=disconnected note="a \"b\"=c\nd" peer=10.0.0.1"# + "\n")
  }

  func testJSONIsOneObjectALine() throws {
    let line = StructuredLogHandler.line(
      format: .json, time: time, level: .error, message: "bad \u{1B}[2J", metadata: ["k": "v"])
    XCTAssertEqual(line.filter { $0 == "\n" }.count, 1)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
    XCTAssertEqual(
      object,
      ["time": "2026-11-25T14:03:20.123Z", "level": "ERROR", "msg": "bad \u{1B}[2J", "k": "v"])
    XCTAssertFalse(line.contains("\u{1B}"), "the control character escaped")
  }

  func testLevelsAreExporterToolkitsAndFilter() {
    XCTAssertEqual(StructuredLogHandler.level("warn"), .warning)
    XCTAssertNil(StructuredLogHandler.level("verbose"))
    let lines = LockedLines()
    var logger = Logger(label: "t") { _ in
      StructuredLogHandler(format: .logfmt, level: .warning, write: lines.append)
    }
    logger.info("quiet")
    logger.warning("loud")
    logger[metadataKey: "agent"] = "a"
    logger.error("louder")
    XCTAssertEqual(lines.all.count, 2)
    XCTAssertTrue(lines.all[1].contains(" agent=a"))
  }
}

final class LockedLines: Sendable {
  private let lines = NSLock()
  nonisolated(unsafe) private var stored: [String] = []
  var all: [String] {
    lines.lock()
    defer { lines.unlock() }
    return stored
  }
  @Sendable func append(_ line: String) {
    lines.lock()
    stored.append(line)
    lines.unlock()
  }
}
