import Foundation
import XCTest

/// `check-config` reports every problem of a file in one pass, each with its line: a duplicated
/// key does not hide the rest, and a capture filter that does not compile is reported beside
/// the YAML's issues, not only once they are fixed.
extension CommandLineTests {
  func testCheckConfigReportsEveryErrorInOnePassWithItsLine() throws {
    let file = directory.appendingPathComponent("many.yaml")
    try Data(
      """
      snaplen: many
      bpf_filter: "udp and and"
      timers:
        interrupted: 4
        interrupted: 5
      colour: blue
      tick_interval: 2
      tick_interval: 3
      listen: {port: 1}

      """.utf8
    ).write(to: file)
    let result = try run(["check-config", file.path])
    XCTAssertEqual(result.status, 1)
    let lines = result.standardError.split(separator: "\n").map(String.init)
    let expected = [
      "line 1: snaplen: expected a whole number",
      "line 2: bpf_filter: 'udp and and' does not compile",
      "line 5: timers.interrupted: 'interrupted' appears more than once in the same mapping "
        + "(first on line 4)",
      "line 6: colour: unknown key",
      "line 8: tick_interval: 'tick_interval' appears more than once in the same mapping "
        + "(first on line 7)",
      "line 9: listen: expected a string",
    ]
    XCTAssertEqual(lines.count, expected.count, result.standardError)
    for (line, want) in zip(lines, expected) {
      XCTAssertTrue(line.hasPrefix("netquality: error: \(file.path): "), line)
      XCTAssertTrue(line.contains(want), "\(line) should say \(want)")
    }
  }
}
