import Foundation
import XCTest

/// Issue 40: an invalid `--web.telemetry-path` stops `run` at once, in one line.
extension CommandLineTests {
  func testAnInvalidTelemetryPathIsOneLine() throws {
    let result = try run(["run", "--interface", "lo", "--web.telemetry-path", "/probe"])
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(
      result.standardError,
      "netquality: error: --web.telemetry-path: '/probe' is another route of the server; "
        + "choose another path\n")
  }
}
