import Foundation
import XCTest

/// The history commands say what they read and refuse what is a mistake: a peer the history
/// never saw is an error naming the peers it has, and the default file is named when used.
extension HistoryRoundTripTests {
  func testAPeerTheHistoryNeverSawIsAnErrorNamingTheOnesItHas() throws {
    let capture = directory.appendingPathComponent("call.pcap").path
    let database = directory.appendingPathComponent("history.db").path
    XCTAssertEqual(
      try run(["generate", "-o", capture, "--streams", "2", "--packets", "600", "--seed", "3"])
        .status, 0)
    XCTAssertEqual(
      try run(["analyze", capture, "--local", "10.10.0.0/16", "--db", database]).status, 0)
    let history = try run([
      "history", "--db", database, "--from", "0", "--peer", "203.0.113.99",
    ])
    XCTAssertEqual(history.status, 1)
    XCTAssertEqual(history.standardOutput, "")
    XCTAssertTrue(
      history.standardError.hasPrefix(
        "netquality: error: --peer 203.0.113.99: no such peer in \(database); peers include 10.20."),
      history.standardError)
    let known = try run(["history", "--db", database, "--from", "0", "--peer", "10.20.0.1"])
    XCTAssertEqual(known.status, 0, known.standardError)
    XCTAssertTrue(
      known.standardOutput.contains("Z  10.20.0.1"), "UTC said: \(known.standardOutput)")
  }

  func testTheDefaultFileIsNamedWhenNoneIsGiven() throws {
    let history = try run(["history", "--since", "1h"])
    XCTAssertTrue(
      history.standardError.hasPrefix(
        "netquality: warning: reading /var/lib/netquality/history.db (the default storage_path; "),
      history.standardError)
  }
}
