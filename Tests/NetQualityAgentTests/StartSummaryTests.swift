import NetQualityConfig
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// The start-up line names what the agent runs with, in a line a terminal can show.
final class StartSummaryTests: XCTestCase {
  func summaryTargets(_ count: Int) -> String {
    var configuration = AgentConfiguration()
    configuration.probes = (0..<count).map { index in
      ProbeTargetSettings(
        target: Endpoint(address: IPAddress(ipv4: 127, 1, 0, UInt8(1 + index % 250)), port: 862))
    }
    let summary = Agent.startSummary(
      configuration, file: nil, interfaces: ["lo"], local: [], lifecycle: false)
    return summary["probe_targets"].map { "\($0)" } ?? ""
  }

  func testAThousandProbeTargetsAreTheFirstTenAndACount() {
    let text = summaryTargets(1000)
    XCTAssertTrue(text.hasPrefix("127.1.0.1:862,127.1.0.2:862,"), text)
    XCTAssertTrue(text.hasSuffix("127.1.0.10:862 and 990 more"), text)
  }

  func testAFewProbeTargetsAreAllNamed() {
    XCTAssertEqual(summaryTargets(2), "127.1.0.1:862,127.1.0.2:862")
    XCTAssertEqual(summaryTargets(0), "none")
  }
}
