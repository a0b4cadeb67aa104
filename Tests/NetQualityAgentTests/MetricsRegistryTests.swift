import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// The registry builds every collector of the catalogue, in the catalogue's order, from an agent
/// with every subsystem on: a collector declared but not registered, or registered out of its
/// place, fails here rather than going missing from `/metrics`.
final class MetricsRegistryTests: XCTestCase {
  func testEveryCataloguedCollectorIsRegisteredInItsPlace() {
    let state = MetricsGoldenTests.replayedState()
    state.update { $0.lastRenderSeconds = 0.001 }
    let collectors = MetricsRegistry.collectors(
      state, http: ConnectionRegistry.Counters(), security: WebSecurity(.none))
    XCTAssertEqual(
      collectors.flatMap { type(of: $0).families.map(\.name) },
      MetricCatalogue.families.map(\.name))
  }
}
