import Foundation
import NetQualityCore
import XCTest

@testable import NetQualityExport

/// Strings from the wire, a configuration or the API reach terminals as visible escapes, never
/// as the controls that clear screens, retitle windows or write clipboards.
final class TerminalTextTests: XCTestCase {
  /// Erase the screen, OSC 52 (write "hello" to the clipboard), OSC 0 (the window title), a
  /// carriage return, the C1 CSI and DEL.
  static let hostile =
    "evil\u{1B}[2J\u{1B}]52;c;aGVsbG8=\u{07}\u{1B}]0;pwned\u{07}\rX\u{9B}31m\u{7F}\u{0}"

  /// Whether `text` holds a C0 control other than the line feeds that end lines, DEL or a C1
  /// control.
  static func hasControl(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0 != "\n" && TerminalText.isControl($0) }
  }

  func testEveryControlCharacterBecomesAVisibleEscape() {
    XCTAssertEqual(
      TerminalText.sanitized(Self.hostile),
      "evil\\x1B[2J\\x1B]52;c;aGVsbG8=\\x07\\x1B]0;pwned\\x07\\x0DX\\x9B31m\\x7F\\x00")
    for value in UInt32(0)...0xA0 {
      let scalar = Unicode.Scalar(value)!
      let text = TerminalText.sanitized(String(Character(scalar)))
      let control = value < 0x20 || (0x7F...0x9F).contains(value)
      XCTAssertEqual(text.unicodeScalars.count, control ? 4 : 1, "U+\(String(value, radix: 16))")
      XCTAssertFalse(Self.hasControl(text), "U+\(String(value, radix: 16))")
    }
  }

  func testPrintableTextIsLeftAlone() {
    for text in ["198.51.100.7", "opus", "Δ ms", "café", "東京-edge", "\u{A0}nbsp", ""] {
      XCTAssertEqual(TerminalText.sanitized(text), text)
    }
  }

  /// A named peer group (its name comes from the configuration) with an alert on it: the
  /// dashboard's rows and event lines and the timeline's show the name escaped.
  func testDashboardAndTimelineShowNamesAndSummariesEscaped() {
    let peer = DashboardFrameTests.peer(Self.hostile, rx: .bad, tx: .excellent)
    let alert = Alert(
      id: "a", rule: "rule\u{1B}]52;c;eA==\u{07}", severity: .warning,
      labels: ["peer": Self.hostile], state: .firing, start: DashboardFrameTests.time,
      summary: "peer \(Self.hostile) rx quality bad over 3 ticks")
    let events = [
      EngineEvent(time: DashboardFrameTests.time, kind: .disconnected, peer: Self.hostile),
      EngineEvent(
        time: DashboardFrameTests.time, kind: .alertFiring, peer: Self.hostile,
        previousState: nil, alert: alert),
    ]
    let result = Engine.TickResult(
      snapshot: Snapshot(
        time: DashboardFrameTests.time, intervalSeconds: 2, hostRx: .bad, hostTx: .excellent,
        peers: [peer], streams: []),
      events: events)
    let frame = DashboardFrame.render(result, firingAlerts: 1)
    let timeline = TimelineTable.lines(result).joined(separator: "\n")
    for text in [frame, timeline] {
      XCTAssertFalse(Self.hasControl(text), text)
      XCTAssertTrue(text.contains("evil\\x1B[2J\\x1B]52;c;aGVsbG8=\\x07"), text)
      XCTAssertTrue(text.contains("rx quality bad over 3 ticks"), text)
    }
    // The row holds the whole escaped name, then its figures.
    let row = frame.split(separator: "\n").first { $0.hasPrefix("evil") } ?? ""
    XCTAssertTrue(row.hasPrefix(TerminalText.sanitized(Self.hostile) + " bad"), String(row))
  }

  /// JSON escapes every control character: C0 as RFC 8259 requires, DEL and C1 too (allowed,
  /// and JSON lines are read on terminals), and the text reads back unchanged.
  func testJSONCarriesControlCharactersOnlyEscaped() throws {
    let text = JSONValue.object([("peer", .string(Self.hostile))]).text
    XCTAssertFalse(Self.hasControl(text), text)
    XCTAssertTrue(text.contains(#"\u001b[2J"#), text)
    XCTAssertTrue(text.contains(#"\u009b31m\u007f\u0000"#), text)
    let decoded = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
    XCTAssertEqual(decoded["peer"], Self.hostile)
    // Foundation's encoder (the analysis JSON) escapes C0 only: the rest is escaped after it.
    let encoded = try JSONEncoder().encode(["peer": Self.hostile])
    let escaped = JSONValue.escapingDELAndC1(String(decoding: encoded, as: UTF8.self))
    XCTAssertFalse(Self.hasControl(escaped), escaped)
    XCTAssertTrue(escaped.contains(#"X\u009b31m\u007f"#), escaped)
    let roundTrip = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(escaped.utf8)) as? [String: String])
    XCTAssertEqual(roundTrip["peer"], Self.hostile)
  }
}
