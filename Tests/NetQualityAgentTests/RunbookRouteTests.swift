import Foundation
import Hummingbird
import HummingbirdTesting
import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// `GET /runbook`: docs/runbook.md as built into the binary, each alert at its anchor.
final class RunbookRouteTests: XCTestCase {
  func testRunbookIsServedWithAnAnchorPerAlert() async throws {
    let state = HTTPRoutesTests.tickedState()
    let app = Application(router: HTTPServer.router(state: state))
    let source = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/runbook.md"), encoding: .utf8)
    try await app.test(.router) { client in
      try await client.execute(uri: "/runbook", method: .get) { response in
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
        let html = String(buffer: response.body)
        // Every alert the agent pushes, and every Prometheus rule, has its section.
        for anchor in [
          "peer_rx_quality_bad", "peer_tx_quality_bad", "peer_disconnected", "peer_timeout",
          "video_freezes", "storage_failing", "configured-rules", "netqualityagentdown",
        ] {
          XCTAssertTrue(html.contains(" id=\"\(anchor)\">"), anchor)
        }
        // The text is the file's, as built: each heading of docs/runbook.md is on the page.
        let headings = source.split(separator: "\n").filter { $0.hasPrefix("#") }
        XCTAssertGreaterThan(headings.count, 10)
        for heading in headings {
          let text = heading.drop { $0 == "#" }.dropFirst()
          XCTAssertTrue(
            html.contains(" id=\"\(MarkdownPage.anchor(String(text)))\">"), String(heading))
        }
        XCTAssertFalse(html.contains("<script"))
      }
    }
  }
}
