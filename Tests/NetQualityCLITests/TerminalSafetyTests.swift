import Foundation
import NetQualityCore
import NetQualitySynth
import XCTest

/// `analyze` prints what captures say (SDP encoding names, RTCP CNAMEs) without letting it
/// drive the reader's terminal.
extension CommandLineTests {
  /// Erase the screen, write "hello" to the clipboard (OSC 52), and the C1 CSI: what an
  /// `rtpmap` line can carry (no line break, no `/`).
  static let hostileEncoding = "\u{1B}[2J\u{1B}]52;c;aGVsbG8=\u{07}\u{9B}31mPCMU"
  /// A CNAME can carry any byte: the window title (OSC 0), a carriage return, DEL, NUL.
  static let hostileCanonicalName = "x\u{1B}]0;pwned\u{07}\r\n\u{7F}\u{0}@host"

  /// A SIP INVITE whose SDP maps payload type 96 to `hostileEncoding`, 300 packets of it,
  /// and the sender's RTCP with `hostileCanonicalName`.
  static func hostileStringsCapture() -> [UInt8] {
    let caller = Endpoint(address: IPAddress(ipv4: 10, 40, 0, 2), port: 40_000)
    let callee = Endpoint(address: IPAddress(ipv4: 10, 40, 0, 1), port: 30_000)
    let start: Int64 = 1_767_225_600_000_000_000
    var writer = PcapWriter()
    let invite = """
      INVITE sip:bob@10.40.0.1 SIP/2.0\r
      Via: SIP/2.0/UDP 10.40.0.2:5060\r
      Content-Type: application/sdp\r
      \r
      v=0\r
      o=- 1 1 IN IP4 10.40.0.2\r
      s=-\r
      c=IN IP4 10.40.0.1\r
      t=0 0\r
      m=audio 30000 RTP/AVP 96\r
      a=rtpmap:96 \(hostileEncoding)/8000\r

      """
    writer.append(
      PacketBuilder.frame(
        source: Endpoint(address: caller.address, port: 5060),
        destination: Endpoint(address: callee.address, port: 5060), payload: Array(invite.utf8)),
      at: CaptureTime(nanosecondsSinceEpoch: start))
    for index in 0..<300 {
      let time = CaptureTime(nanosecondsSinceEpoch: start + Int64(index + 1) * 20_000_000)
      let rtp = PacketBuilder.rtp(
        payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160),
        ssrc: 0xE5C0_0001)
      writer.append(
        PacketBuilder.frame(source: caller, destination: callee, payload: rtp), at: time)
      guard index % 100 == 99 else { continue }
      let rtcp =
        RTCPBuilder.senderReport(
          ssrc: 0xE5C0_0001, ntpTimestamp: UInt64(index) << 32, rtpTimestamp: UInt32(index * 160),
          packetCount: UInt32(index + 1), octetCount: UInt32(index + 1) * 160)
        + RTCPBuilder.sourceDescription(ssrc: 0xE5C0_0001, canonicalName: hostileCanonicalName)
      writer.append(
        PacketBuilder.frame(
          source: Endpoint(address: caller.address, port: caller.port + 1),
          destination: Endpoint(address: callee.address, port: callee.port + 1), payload: rtcp),
        at: time.advanced(byNanoseconds: 1_000_000))
    }
    return writer.bytes
  }

  /// C0 controls other than the line feeds that end lines, DEL and C1 controls.
  static func controlCharacters(_ text: String) -> [String] {
    text.unicodeScalars.filter { scalar in
      scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
    }.map { "U+" + String($0.value, radix: 16) }
  }

  func testControlCharactersInSDPAndRTCPNeverReachTheTerminal() throws {
    let url = directory.appendingPathComponent("hostile-strings.pcap")
    try Data(Self.hostileStringsCapture()).write(to: url)
    let local = ["--local", "10.40.0.1/32"]
    for mode in Self.modes {
      let result = try run(["analyze", url.path] + mode + local)
      XCTAssertEqual(result.status, 0, result.standardError)
      XCTAssertEqual(Self.controlCharacters(result.standardOutput), [], "\(mode)")
      XCTAssertEqual(Self.controlCharacters(result.standardError), [], "\(mode)")
    }
    // The table names the encoding, escaped.
    let table = try run(["analyze", url.path] + local).standardOutput
    XCTAssertTrue(
      table.contains("96 \\x1B[2J\\x1B]52;c;aGVsbG8=\\x07\\x9B31mPCMU"), table)
    XCTAssertTrue(table.contains("300"), table)
    // JSON keeps the strings exactly (escaped in the text, the same once decoded).
    let json = try run(["analyze", url.path, "--format", "json"] + local).standardOutput
    let document = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let stream = try XCTUnwrap((document["streams"] as? [[String: Any]])?.first)
    XCTAssertEqual(stream["encoding"] as? String, Self.hostileEncoding)
    XCTAssertEqual(stream["packets"] as? Int, 300)
    let rtcp = try XCTUnwrap(stream["rtcp"] as? [String: Any])
    XCTAssertEqual(rtcp["cname"] as? String, Self.hostileCanonicalName)
  }

  /// A configuration's strings (here an interface name, which YAML's `\e` makes an ESC) reach
  /// `check-config`'s lines escaped, and each issue stays one line.
  func testCheckConfigShowsTheFilesStringsEscaped() throws {
    let config = directory.appendingPathComponent("hostile.yaml")
    try #"interfaces: ["eth\e]0;pwned\a\e[2J"]"#.write(
      to: config, atomically: false, encoding: .utf8)
    let result = try run(["check-config", config.path])
    XCTAssertEqual(Self.controlCharacters(result.standardOutput), [], result.standardOutput)
    XCTAssertEqual(Self.controlCharacters(result.standardError), [], result.standardError)
    let shown = "eth\\x1B]0;pwned\\x07\\x1B[2J"
    XCTAssertTrue(
      result.standardError.contains("not on this host: \(shown) "), result.standardError)
    XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
  }
}
