import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NetQualityCore
import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// `/metrics` as Prometheus fetches it: gzip when asked, the tick's section rendered once per
/// tick and served from the cache.
final class MetricsEncodingTests: XCTestCase {
  func testGzipWhenTheScraperAsksForIt() async throws {
    let state = HTTPRoutesTests.tickedState()
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      let plain = try await client.execute(uri: "/metrics", method: .get)
      XCTAssertNil(plain.headers[.contentEncoding])
      let text = String(buffer: plain.body)
      XCTAssertTrue(text.contains("netquality_peers{direction=\"rx\",level=\"excellent\"} 1"))

      let zipped = try await client.execute(
        uri: "/metrics", method: .get, headers: [.acceptEncoding: "gzip"])
      XCTAssertEqual(zipped.headers[.contentEncoding], "gzip")
      XCTAssertEqual(zipped.headers[.vary], "Accept-Encoding")
      let unzipped = try XCTUnwrap(Gzip.decompress(Array(buffer: zipped.body)))
      // The same exposition, but for the scrape-time figures: the previous render's time, and
      // the process's own (its resident memory grew by the gzip of the first answer in a run
      // on a loaded machine: 51,466,240 bytes against 50,941,952).
      let withoutScrapeTime = { (body: String) in
        body.split(separator: "\n").filter {
          !$0.contains("netquality_scrape_duration") && !$0.hasPrefix("process_")
        }
      }
      XCTAssertTrue(
        withoutScrapeTime(String(decoding: unzipped, as: UTF8.self)) == withoutScrapeTime(text))
    }
  }

  /// The section the ticker renders is what a scrape serves (not a second rendering).
  func testScrapesServeTheSectionRenderedAtTheTick() async throws {
    let state = HTTPRoutesTests.tickedState()
    state.update { $0.tickMetrics = "netquality_cached_marker 1\n" }
    let app = Application(router: HTTPServer.router(state: state))
    try await app.test(.router) { client in
      let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      XCTAssertTrue(text.contains("netquality_cached_marker 1\n"))
      XCTAssertFalse(text.contains("netquality_peer_quality_level"))
    }
  }
}
