import Foundation
import NetQualityExport
import XCTest

/// The Grafana dashboards of dashboards/: their structure, and every metric and label they
/// query is one the agent exposes (the catalogue) or a recording rule of config/rules/.
final class DashboardTests: XCTestCase {
  static let datasource = "${datasource}"

  func testThereAreTheFourDashboards() throws {
    let titles = try OperatorsKit.dashboards().compactMap { $0.json["title"] as? String }
    XCTAssertEqual(
      Set(titles),
      [
        "netquality / Overview", "netquality / Peer detail", "netquality / Agent health",
        "netquality / Fleet",
      ])
  }

  func testDashboardsProvisionWithoutInputs() throws {
    for (path, dashboard) in try OperatorsKit.dashboards() {
      let text = try OperatorsKit.text(path)
      // ${DS_PROMETHEUS} and __inputs come from Grafana's "export for sharing" and break file
      // provisioning (the variable is never filled in).
      XCTAssertFalse(text.contains("DS_PROMETHEUS"), path)
      XCTAssertNil(dashboard["__inputs"], path)
      XCTAssertGreaterThanOrEqual(dashboard["schemaVersion"] as? Int ?? 0, 39, path)
      XCTAssertNotNil(dashboard["uid"] as? String, path)
      let variables = Dictionary(
        OperatorsKit.variables(dashboard).compactMap { variable in
          (variable["name"] as? String).map { ($0, variable) }
        }, uniquingKeysWith: { first, _ in first })
      XCTAssertEqual(variables["datasource"]?["type"] as? String, "datasource", path)
      XCTAssertEqual(variables["datasource"]?["query"] as? String, "prometheus", path)
      for name in ["instance", "peer"] {
        let variable = try XCTUnwrap(variables[name], "\(path): no \(name) variable")
        XCTAssertEqual(variable["type"] as? String, "query", "\(path) \(name)")
        XCTAssertTrue(
          (variable["definition"] as? String)?.hasPrefix("label_values(") ?? false,
          "\(path) \(name)")
        XCTAssertEqual(Self.uid(variable["datasource"]), Self.datasource, "\(path) \(name)")
      }
    }
  }

  func testPanelsHaveUniqueIDsAndQueryTheDatasourceVariable() throws {
    for (path, dashboard) in try OperatorsKit.dashboards() {
      let panels = OperatorsKit.panels(dashboard)
      let ids = panels.compactMap { $0["id"] as? Int }
      XCTAssertEqual(ids.count, panels.count, "\(path): a panel without an id")
      XCTAssertEqual(Set(ids).count, ids.count, "\(path): panel ids repeat")
      for panel in panels where panel["type"] as? String != "row" {
        let title = "\(path): \(panel["title"] as? String ?? "?")"
        XCTAssertEqual(Self.uid(panel["datasource"]), Self.datasource, title)
        XCTAssertNotNil(panel["gridPos"] as? [String: Any], title)
        let targets = panel["targets"] as? [[String: Any]] ?? []
        XCTAssertFalse(targets.isEmpty, "\(title): no query")
        for target in targets {
          XCTAssertFalse(
            (target["expr"] as? String ?? "").isEmpty, "\(title): a target without expr")
          XCTAssertEqual(Self.uid(target["datasource"]), Self.datasource, title)
        }
      }
      let annotations = (dashboard["annotations"] as? [String: Any])?["list"] as? [[String: Any]]
      for annotation in annotations ?? [] where annotation["builtIn"] == nil {
        XCTAssertEqual(Self.uid(annotation["datasource"]), Self.datasource, path)
        XCTAssertFalse((annotation["expr"] as? String ?? "").isEmpty, path)
      }
    }
  }

  /// rate() and increase() over `$__rate_interval`: at least four scrapes whatever the
  /// scrape interval and the panel's resolution (Grafana's documentation of the variable).
  func testRatesUseTheRateInterval() throws {
    for (path, dashboard) in try OperatorsKit.dashboards() {
      for expression in OperatorsKit.expressions(dashboard) {
        let ranges = try OperatorsKit.matches(#"\[([^\]]*)\]"#, expression).compactMap { $0[1] }
        XCTAssertEqual(
          Set(ranges).subtracting(["$__rate_interval"]), [], "\(path): \(expression)")
        let functions = try OperatorsKit.matches(#"\b(rate|increase|irate|delta)\("#, expression)
        XCTAssertEqual(functions.count, ranges.count, "\(path): \(expression)")
      }
    }
  }

  func testEveryMetricAndLabelQueriedExists() throws {
    let recorded = try PrometheusRulesTests.recordingRules()
    var checked = 0
    for (path, dashboard) in try OperatorsKit.dashboards() {
      for expression in OperatorsKit.expressions(dashboard) {
        for selector in try OperatorsKit.selectors(expression) {
          try PrometheusRulesTests.checkSelector(
            selector, recorded: recorded, context: "\(path): \(expression)")
          if selector.name.hasPrefix("netquality_") || selector.name.contains(":") { checked += 1 }
        }
      }
    }
    XCTAssertGreaterThan(checked, 100, "the dashboards' selectors were not found")
  }

  static func uid(_ datasource: Any?) -> String? {
    (datasource as? [String: Any])?["uid"] as? String
  }
}
