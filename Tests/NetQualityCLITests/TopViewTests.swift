import Foundation
import XCTest

@testable import netquality

/// `top` draws whatever the server sends: levels outside the scale are shown, not indexed.
final class TopViewTests: XCTestCase {
  func testLevelsOutsideTheScaleAreShownAsNumbers() {
    var view = TopView(color: false)
    view.hostRx = 99
    view.hostTx = -3
    view.rows = [
      TopView.Row(
        peer: "192.0.2.9", state: "connected", rx: 7, tx: Int.min, mos: nil, loss: nil,
        jitter: nil, rtt: nil, source: "probe")
    ]
    let lines = view.render(size: (rows: 20, columns: 120))
    XCTAssertTrue(lines[0].contains("host rx level 99 tx level -3"), lines[0])
    let row = lines.first { $0.hasPrefix("192.0.2.9") } ?? ""
    XCTAssertTrue(row.contains("level 7"), row)
    XCTAssertTrue(row.hasSuffix(" probe"), row)
    XCTAssertEqual(TopView.levelName(5), "very_bad")
  }

  func testAsksTheAgentForTheRowsThatFitInItsOrderAndFilter() {
    var view = TopView(color: false)
    // 30 lines less the title, keys, level counts and column names.
    XCTAssertEqual(view.requestPath(rows: 30), "/api/v1/peers?limit=26&sort=worst")
    XCTAssertEqual(view.requestPath(rows: 3), "/api/v1/peers?limit=1&sort=worst")
    XCTAssertEqual(view.requestPath(rows: 5000), "/api/v1/peers?limit=1000&sort=worst")
    for (key, sort) in [("o", "loss"), ("j", "jitter"), ("p", "name"), ("l", "worst")] {
      XCTAssertTrue(view.handle(UInt8(ascii: Unicode.Scalar(key) ?? "?")))
      XCTAssertEqual(view.requestPath(rows: 30), "/api/v1/peers?limit=26&sort=\(sort)")
    }
    for key in Array("/10.0 &é".utf8) + [13] { XCTAssertTrue(view.handle(key)) }
    // Typed bytes outside ASCII are dropped by the line editor; the rest is encoded.
    XCTAssertEqual(view.filter, "10.0 &")
    XCTAssertEqual(
      view.requestPath(rows: 30), "/api/v1/peers?limit=26&sort=worst&peer_contains=10.0%20%26")
  }

  func testShowsTheAgentsCountsAndKeepsItsOrder() throws {
    var view = TopView(color: false)
    try view.apply(
      """
      {"time":1767225600,"host":{"tx_quality":6,"rx_quality":3},"sort":"worst","total":250,
      "matched":202,"offset":0,"limit":2,"next_cursor":"x",
      "levels":{"rx":{"unknown":36,"excellent":36,"good":0,"poor":36,"bad":0,"very_bad":0,"down":35},
      "tx":{"unknown":0,"excellent":0,"good":0,"poor":0,"bad":0,"very_bad":0,"down":202}},
      "peers":[{"peer":"10.0.1.94","state":"connected","rx_quality":5,"tx_quality":6,"mos":3.2},
      {"peer":"10.0.1.42","state":"connected","rx_quality":2,"tx_quality":6,"mos":3.2}]}
      """)
    let lines = view.render(size: (rows: 10, columns: 200))
    XCTAssertTrue(lines[0].contains("peers 202/250  sort: level"), lines[0])
    XCTAssertEqual(
      lines[2], "rx: excellent 36  poor 36  down 35  unknown 36   tx: down 202")
    // The agent's order (worst, then MOS, then name), not re-sorted here.
    XCTAssertEqual(lines.dropFirst(4).map { String($0.prefix(9)) }, ["10.0.1.94", "10.0.1.42"])
    XCTAssertThrowsError(try view.apply("[]"))
  }

  func testTheRowsOfAnAgentThatDoesNotPageAreSortedAndFilteredHere() throws {
    var view = TopView(color: false)
    view.filter = "0.2"
    try view.apply(
      """
      {"time":1767225600,"host":{"tx_quality":1,"rx_quality":1},
      "peers":[{"peer":"192.0.2.9","state":"connected","rx_quality":1,"tx_quality":1},
      {"peer":"192.0.2.7","state":"connected","rx_quality":4,"tx_quality":1},
      {"peer":"198.51.100.1","state":"connected","rx_quality":6,"tx_quality":6}]}
      """)
    XCTAssertNil(view.total)
    XCTAssertEqual(view.shownRows.map(\.peer), ["192.0.2.7", "192.0.2.9"])
    let lines = view.render(size: (rows: 10, columns: 200))
    XCTAssertTrue(lines[0].contains("peers 3  sort: level"), lines[0])
    XCTAssertEqual(lines[2], "rx: -   tx: -")
  }
}

/// `top` on a narrow terminal keeps the columns an on-call needs first.
final class TopLayoutTests: XCTestCase {
  func view() throws -> TopView {
    var view = TopView(color: false)
    try view.apply(
      """
      {"time":1767225600,"host":{"tx_quality":4,"rx_quality":1},"total":2,"matched":2,
      "alerts_firing":3,
      "peers":[{"peer":"198.51.100.23","state":"interrupted","rx_quality":4,"tx_quality":2,
      "mos":2.1,"rx_loss_ratio":0.121,"tx_loss_ratio":0.034,"rx_jitter_ms":12.5,"rtt_ms":48.3,
      "sources":["rtp","probe"]},
      {"peer":"10.0.0.1","state":"connected","rx_quality":1,"tx_quality":1,"mos":4.3}]}
      """)
    return view
  }

  func testAt80ColumnsTheLossEachWayAndRTTStayJitterAndSourceGo() throws {
    let lines = try view().render(size: (rows: 20, columns: 80))
    XCTAssertTrue(lines[0].contains("alerts 3"), lines[0])
    XCTAssertEqual(
      lines[3], "PEER            STATE        RX        TX         MOS RX LOSS TX LOSS      RTT")
    XCTAssertEqual(
      lines[4], "198.51.100.23   interrupted  bad       good      2.10   12.1%    3.4%  48.3 ms")
    XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, "\(lines.map(\.count))")
  }

  func testAt140ColumnsEveryColumnIsShown() throws {
    let lines = try view().render(size: (rows: 20, columns: 140))
    XCTAssertEqual(
      lines[3],
      "PEER            STATE        RX        TX         MOS RX LOSS TX LOSS   JITTER      RTT SOURCE"
    )
    XCTAssertTrue(lines[4].hasSuffix("12.5 ms  48.3 ms rtp+probe"), lines[4])
  }
}

/// What the agent's API says reaches the terminal only as text: names escaped, answers bounded.
final class TopTerminalSafetyTests: XCTestCase {
  /// A peer named to retitle the window (OSC 0), write the clipboard (OSC 52), return the
  /// cursor and overwrite the row (CR), and the C1 CSI; a state and source alike.
  static let answer = #"""
    {"time":1767225600,"host":{"tx_quality":1,"rx_quality":1},"total":1,"matched":1,
    "peers":[{"peer":"evil\u001b]0;pwned\u0007\u001b]52;c;aGVsbG8=\u0007\r\u009b2J","state":"connected\u001b[2J",
    "rx_quality":1,"tx_quality":4,"mos":4.1,"sources":["rtp\u0007"]}]}
    """#

  /// The terminal's control characters other than the SGR colour codes top writes itself
  /// (ESC [ digits m).
  static func foreignControls(_ line: String) -> [String] {
    var found: [String] = []
    let scalars = Array(line.unicodeScalars)
    var index = 0
    while index < scalars.count {
      let value = scalars[index].value
      if value == 0x1B, index + 1 < scalars.count, scalars[index + 1] == "[" {
        var end = index + 2
        while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
        if end < scalars.count, scalars[end] == "m" {
          index = end + 1
          continue
        }
      }
      if value < 0x20 || (0x7F...0x9F).contains(value) {
        found.append("U+" + String(value, radix: 16))
      }
      index += 1
    }
    return found
  }

  func testHostileNamesFromTheAPIAreShownEscaped() throws {
    for color in [false, true] {
      var view = TopView(color: color)
      try view.apply(Self.answer)
      view.error = "http://127.0.0.1:9470: unexpected answer: HTTP/1.1 500 \u{1B}]52;c;eA==\u{07}"
      let lines = view.render(size: (rows: 20, columns: 300))
      for line in lines {
        XCTAssertEqual(Self.foreignControls(line), [], line)
      }
      let row = try XCTUnwrap(lines.first { $0.hasPrefix("evil") })
      XCTAssertTrue(row.hasPrefix("evil\\x1B]0;pwned\\x07\\x1B]52;c;aGVsbG8=\\…"), row)
      XCTAssertTrue(row.contains("connected\\x…"), row)
      XCTAssertTrue(row.hasSuffix("rtp\\x07"), row)
      XCTAssertTrue(
        lines.contains(
          "! http://127.0.0.1:9470: unexpected answer: HTTP/1.1 500 \\x1B]52;c;eA==\\x07"))
    }
  }

  func testTheResponseReaderCompletesOnContentLengthAndRefusesWhatIsTooLarge() {
    var reader = HTTPEndpoint.ResponseReader(maxBytes: 100)
    let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
    // The header's end split across reads.
    XCTAssertTrue(reader.append(response[0..<36]))
    XCTAssertFalse(reader.isComplete)
    XCTAssertTrue(reader.append(response[36..<39]))
    XCTAssertFalse(reader.isComplete)
    XCTAssertTrue(reader.append(response[39...]))
    XCTAssertTrue(reader.isComplete)
    XCTAssertEqual(reader.bytes, response)
    // A body announced larger than the bound is refused once the header is in.
    var announced = HTTPEndpoint.ResponseReader(maxBytes: 100)
    XCTAssertFalse(
      announced.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 62\r\n\r\n".utf8)[...]))
    // Without a length, the bound itself.
    var endless = HTTPEndpoint.ResponseReader(maxBytes: 100)
    XCTAssertTrue(endless.append(Array("HTTP/1.0 200 OK\r\n\r\n".utf8)[...]))
    XCTAssertTrue(endless.append(ArraySlice(repeating: 0x61, count: 81)))
    XCTAssertFalse(endless.append(ArraySlice(repeating: 0x61, count: 1)))
    XCTAssertEqual(endless.bytes.count, 100)
  }

  /// A server that answers without end: `get` stops at 16 MiB with one line, in well under
  /// the deadline.
  func testAnEndlessAnswerIsCutAtSixteenMebibytes() throws {
    let server = try EndlessServer()
    let started = Date()
    XCTAssertThrowsError(try HTTPEndpoint(url: "http://127.0.0.1:\(server.port)").get("/")) {
      error in
      XCTAssertEqual(
        "\(error)", "the answer is larger than 16 MiB: not a netquality agent's page of peers")
    }
    XCTAssertLessThan(Date().timeIntervalSince(started), 9)
    XCTAssertEqual(HTTPEndpoint.maxResponseBytes, 16 << 20)
    // The server sent what the client read and a little more in flight, not without end.
    server.stop()
    XCTAssertGreaterThanOrEqual(server.bytesSent, 16 << 20)
  }
}

/// A TCP server on a loopback port that answers its first connection with an HTTP header and
/// then endless body bytes, until the client goes away.
final class EndlessServer: @unchecked Sendable {
  let port: UInt16
  private let listener: Int32
  private let lock = NSLock()
  private var sent = 0
  private let done = DispatchSemaphore(value: 0)

  var bytesSent: Int { lock.withLock { sent } }

  init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    listener = descriptor
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0
          && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in
      let client = accept(descriptor, nil, nil)
      defer {
        if client >= 0 { close(client) }
        done.signal()
      }
      guard client >= 0 else { return }
      var timeout = timeval(tv_sec: 10, tv_usec: 0)
      setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var request = [UInt8](repeating: 0, count: 4096)
      _ = recv(client, &request, request.count, 0)
      let header = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n".utf8)
      _ = send(client, header, header.count, Int32(MSG_NOSIGNAL))
      let chunk = [UInt8](repeating: 0x20, count: 65_536)
      while true {
        let count = send(client, chunk, chunk.count, Int32(MSG_NOSIGNAL))
        if count <= 0 { return }
        lock.withLock { sent += count }
      }
    }
  }

  /// Waits for the serving thread to see the client gone, then closes the listener.
  func stop() {
    _ = done.wait(timeout: .now() + 10)
    close(listener)
  }
}
