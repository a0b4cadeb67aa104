import Foundation
import XCTest

/// Issue 40: a repeated `--web.listen-address` listens on every address (it kept the last
/// one), each with the same endpoints; the same address twice is refused.
extension CommandLineTests {
  func testEveryListenAddressAnswers() throws {
    guard getuid() == 0 else { throw XCTSkip("capturing on lo needs root") }
    let ports: [UInt16] = [19_486, 19_487]
    let config = directory.appendingPathComponent("listen.yaml")
    try Data("storage: {enabled: false}\n".utf8).write(to: config)
    let agent = try BinaryProcess(
      binary: binary,
      arguments: ["run", "--config", config.path, "--interface", "lo"]
        + ports.flatMap { ["--web.listen-address", "127.0.0.1:\($0)"] },
      directory: directory)
    defer { agent.stop() }
    for port in ports {
      let status = HTTPGet.waitFor(port: port, path: "/api/v1/status", seconds: 30) { _ in true }
      let configuration = status?["configuration"] as? [String: Any]
      XCTAssertEqual(configuration?["listen"] as? String, "127.0.0.1:19486", agent.standardError)
      XCTAssertEqual(
        configuration?["listen_also"] as? [String], ["127.0.0.1:19487"], agent.standardError)
      XCTAssertEqual(HTTPGet.get(port: port, path: "/-/healthy")?.status, 200)
    }
    XCTAssertTrue(
      agent.standardError.contains("also listening on http://127.0.0.1:19487"),
      agent.standardError)

    let twice = try run([
      "run", "--interface", "lo", "--web.listen-address", "127.0.0.1:19488",
      "--web.listen-address", "127.0.0.1:19488",
    ])
    XCTAssertEqual(twice.status, 2)
    XCTAssertTrue(
      twice.standardError.contains("--web.listen-address 127.0.0.1:19488: given twice"),
      twice.standardError)
  }
}
