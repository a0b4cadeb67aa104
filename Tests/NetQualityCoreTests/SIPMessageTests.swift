import Foundation
import NetQualitySynth
import XCTest

@testable import NetQualityCore

final class SIPMessageTests: XCTestCase {
  func parse(_ text: String, framing: SIPMessage.Framing = .datagram) -> SIPMessage.Parse {
    Array(text.utf8).withUnsafeBytes { SIPMessage.parse($0, framing: framing) }
  }

  func message(_ text: String) throws -> SIPMessage {
    guard case .message(let message, _) = parse(text) else {
      XCTFail("not a message: \(parse(text))")
      throw XCTSkip()
    }
    return message
  }

  static let invite = """
    INVITE sip:+4930123456@gw.example.com SIP/2.0\r
    Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds, SIP/2.0/UDP 192.0.2.9;branch=z9hG4bKold\r
    Via: SIP/2.0/UDP 192.0.2.8;branch=z9hG4bKolder\r
    Max-Forwards: 70\r
    To: "Bob <the boss>" <sip:+4930123456@gw.example.com;user=phone>\r
    From: Alice <sip:alice@example.com>;tag=1928301774\r
    Call-ID: a84b4c76e66710@pc33.example.com\r
    CSeq: 314159 INVITE\r
    Contact: <sip:alice@192.0.2.10>\r
    Content-Type: application/sdp\r
    Content-Length: 141\r
    \r
    v=0\r
    o=- 1 1 IN IP4 192.0.2.10\r
    s=-\r
    c=IN IP4 192.0.2.10\r
    t=0 0\r
    m=audio 49170 RTP/AVP 8 101\r
    a=rtpmap:101 telephone-event/8000\r
    a=sendonly\r

    """

  /// RFC 3261 section 20: the dialog's identifiers, the users, the CSeq and the top Via's branch.
  func testInviteGivesDialogUsersAndOffer() throws {
    let invite = try message(Self.invite)
    XCTAssertEqual(invite.method, .invite)
    XCTAssertNil(invite.statusCode)
    XCTAssertEqual(invite.callID, "a84b4c76e66710@pc33.example.com")
    XCTAssertEqual(invite.fromTag, "1928301774")
    XCTAssertNil(invite.toTag)
    XCTAssertEqual(invite.fromUser, "alice")
    XCTAssertEqual(invite.toUser, "+4930123456")
    XCTAssertEqual(invite.cseq, 314_159)
    XCTAssertEqual(invite.viaBranch, "z9hG4bK776asdhds")
    XCTAssertNil(invite.dialogDefect)
    let media = try XCTUnwrap(invite.sessionDescription?.media.first)
    XCTAssertEqual(media.endpoint, Net.endpoint("192.0.2.10", 49_170))
    XCTAssertEqual(media.payloadTypes, [8, 101])
    XCTAssertEqual(media.direction, .sendonly)
    XCTAssertEqual(media.firstEncodingName, "PCMA")
  }

  /// RFC 3261 section 7.3.3 compact forms, a response's method from its CSeq, folded headers.
  func testCompactFormsAndResponses() throws {
    let text = """
      SIP/2.0 486 Busy Here\r
      v: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKx\r
      f: <sip:alice@example.com>;tag=abc\r
      t: sip:bob@example.com;tag=xyz\r
      i: call-1\r
      CSeq: 7\r
       INVITE\r
      l: 0\r
      \r

      """
    let response = try message(text)
    XCTAssertEqual(response.statusCode, 486)
    XCTAssertEqual(response.method, .invite)
    XCTAssertEqual(response.callID, "call-1")
    XCTAssertEqual(response.toTag, "xyz")
    XCTAssertEqual(response.toUser, "bob")
    XCTAssertEqual(response.cseq, 7)
  }

  /// Hostile or broken input: counted reasons, never a crash or a guess.
  func testMalformedMessagesSayWhy() {
    XCTAssertEqual(parse("SIP/2.0 999 Odd\r\nCall-ID: x\r\n\r\n"), .malformed(.startLine))
    XCTAssertEqual(parse("INVITE sip:a@b SIP/3.0\r\n\r\n"), .malformed(.startLine))
    XCTAssertEqual(
      parse("INVITE sip:a@b SIP/2.0\r\nno colon here\r\n\r\n"), .malformed(.headerLine))
    let longID = String(repeating: "x", count: 300)
    XCTAssertEqual(
      parse("BYE sip:a@b SIP/2.0\r\nCall-ID: \(longID)\r\nCSeq: 1 BYE\r\n\r\n"),
      .malformed(.fieldTooLong))
    let manyHeaders = (0..<300).map { "X-\($0): y\r\n" }.joined()
    XCTAssertEqual(parse("BYE sip:a@b SIP/2.0\r\n\(manyHeaders)\r\n"), .malformed(.tooManyHeaders))
    let huge = String(repeating: "X-Pad: \(String(repeating: "p", count: 100))\r\n", count: 200)
    XCTAssertEqual(parse("BYE sip:a@b SIP/2.0\r\n\(huge)"), .malformed(.headerTooLong))
    XCTAssertEqual(parse("GET / HTTP/1.1\r\n\r\n"), .notSIP)
    // No Call-ID, or a CSeq naming another method: kept for its SDP, marked for call detection.
    if case .message(let message, _) = parse("BYE sip:a@b SIP/2.0\r\nCSeq: 1 BYE\r\n\r\n") {
      XCTAssertEqual(message.dialogDefect, .missingCallID)
    } else {
      XCTFail("a message without Call-ID is still read")
    }
    if case .message(let message, _) = parse(
      "BYE sip:a@b SIP/2.0\r\nCall-ID: c\r\nCSeq: 1 ACK\r\n\r\n")
    {
      XCTAssertEqual(message.dialogDefect, .cseq)
    } else {
      XCTFail("a message with a wrong CSeq is still read")
    }
  }

  /// RFC 3261 section 18.3: in a stream, Content-Length frames each message.
  /// Hostile SIP: 5,000 mutations of an INVITE (bytes flipped, cut, repeated, lengths made
  /// huge or negative), parsed as a datagram, as a stream and through TCP reassembly, each
  /// ends in a message, incomplete, not SIP or a counted reason: never a trap.
  func testMutatedMessagesNeverTrap() {
    var random = SystemRandomNumberGenerator()
    let original = Array(Self.invite.utf8)
    let tokens = Array("\r\n:;<>\"@=, \t-0123456789999999999999Content-Length: -1".utf8)
    var outcomes: [String: Int] = [:]
    var reassembly = SIPStreamReassembly()
    for round in 0..<5_000 {
      var bytes = original
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        guard !bytes.isEmpty else { break }
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: bytes[at] = tokens.randomElement(using: &random) ?? 0
        case 1: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40)))
        case 2: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 64)], at: at)
        default: bytes[at] = UInt8.random(in: 0...255, using: &random)
        }
      }
      bytes.withUnsafeBytes { raw in
        for framing in [SIPMessage.Framing.datagram, .stream] {
          switch SIPMessage.parse(raw, framing: framing) {
          case .message: outcomes["message", default: 0] += 1
          case .incomplete: outcomes["incomplete", default: 0] += 1
          case .notSIP: outcomes["not SIP", default: 0] += 1
          case .malformed(let reason): outcomes[reason.rawValue, default: 0] += 1
          }
        }
        let endpoint = Endpoint(address: IPAddress(ipv4: 0xC000_020A), port: 5060)
        _ = reassembly.segment(
          raw, sequence: UInt32(truncatingIfNeeded: round &* 977), source: endpoint,
          destination: endpoint, at: CaptureTime(nanosecondsSinceEpoch: Int64(round)))
      }
    }
    XCTAssertEqual(outcomes.values.reduce(0, +), 10_000)
    XCTAssertGreaterThan(outcomes["message"] ?? 0, 0, "\(outcomes)")
    XCTAssertLessThanOrEqual(reassembly.connections.count, SIPStreamReassembly.maxConnections)
  }

  func testStreamFramingWaitsForTheBodyAndSplitsMessages() {
    let body = "v=0\r\nc=IN IP4 192.0.2.1\r\nm=audio 4000 RTP/AVP 0\r\n"
    let first =
      "INVITE sip:b@h SIP/2.0\r\nCall-ID: s1\r\nCSeq: 1 INVITE\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
      + body
    let second = "BYE sip:b@h SIP/2.0\r\nCall-ID: s1\r\nCSeq: 2 BYE\r\nContent-Length: 0\r\n\r\n"
    guard case .message(let message, let length) = parse(first + second, framing: .stream) else {
      return XCTFail("two messages in a stream")
    }
    XCTAssertEqual(length, first.utf8.count)
    XCTAssertEqual(message.sessionDescription?.media.first?.endpoint.port, 4000)
    XCTAssertEqual(parse(String(first.dropLast(5)), framing: .stream), .incomplete)
    XCTAssertEqual(
      parse("BYE sip:b@h SIP/2.0\r\nCall-ID: s1\r\nCSeq: 2 BYE\r\n\r\n", framing: .stream),
      .malformed(.contentLength))
  }

  /// A message cut across TCP segments is read when its last segment comes; retransmitted
  /// segments are read once; a gap drops the partial message.
  func testTCPReassembly() {
    let source = Net.endpoint("192.0.2.10", 5060)
    let destination = Net.endpoint("192.0.2.20", 5060)
    let body = SIPBuilder.sdp(media: Net.endpoint("192.0.2.10", 4000))
    let text = Array(
      ("INVITE sip:b@h SIP/2.0\r\nCall-ID: t1\r\nCSeq: 1 INVITE\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        + body).utf8)
    var reassembly = SIPStreamReassembly()
    func segment(_ bytes: ArraySlice<UInt8>, _ sequence: UInt32) -> SIPStreamReassembly.Output {
      Array(bytes).withUnsafeBytes {
        reassembly.segment(
          $0, sequence: sequence, source: source, destination: destination, at: Net.time(0))
      }
    }
    XCTAssertEqual(segment(text[0..<60], 1000).messages.count, 0)
    XCTAssertEqual(segment(text[0..<60], 1000).messages.count, 0, "a retransmission")
    let completed = segment(text[60...], 1060)
    XCTAssertEqual(completed.messages.map(\.callID), ["t1"])
    XCTAssertEqual(completed.reassembled, 1)
    XCTAssertTrue(reassembly.connections.isEmpty)
    XCTAssertEqual(segment(text[0..<60], 5000).messages.count, 0)
    let gap = segment(text[80...], 5080)
    XCTAssertEqual(gap.messages.count, 0)
    XCTAssertEqual(gap.malformed, [.reassembly])
  }

  /// ICE USERNAME "a:b" and "b:a" name the same session (RFC 8445 section 7.2.2).
  func testICESessionHashIgnoresOrder() {
    func hash(_ text: String) -> UInt64? {
      Array(text.utf8).withUnsafeBytes { STUNMessage.sessionHash($0) }
    }
    XCTAssertEqual(hash("abcd:efgh"), hash("efgh:abcd"))
    XCTAssertNotEqual(hash("abcd:efgh"), hash("abcd:efgi"))
    XCTAssertNil(hash("nocolon"))
    XCTAssertNil(hash("a:b:c"))
    XCTAssertNil(hash(":b"))
  }

  /// FIPS 180-4 and RFC 4231 test vectors, and the three masking modes.
  func testUserMasking() {
    let digest = SHA256.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
    XCTAssertEqual(digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let empty = SHA256.hash([]).map { String(format: "%02x", $0) }.joined()
    XCTAssertEqual(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    // RFC 4231 test case 2.
    let mac = SHA256.hmac(
      key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
    XCTAssertEqual(
      mac.map { String(format: "%02x", $0) }.joined(),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    XCTAssertEqual(UserMasking.off.mask("+4930123456"), "+4930123456")
    XCTAssertEqual(UserMasking.lastDigits(count: 4).mask("+4930123456"), "*******3456")
    XCTAssertEqual(UserMasking.lastDigits(count: 4).mask("bob"), "bob")
    let hashed = UserMasking.hash(key: Array("k".utf8)).mask("+4930123456")
    XCTAssertEqual(hashed.count, 18)
    XCTAssertTrue(hashed.hasPrefix("h:"))
    XCTAssertEqual(hashed, UserMasking.hash(key: Array("k".utf8)).mask("+4930123456"))
    XCTAssertNotEqual(hashed, UserMasking.hash(key: Array("other".utf8)).mask("+4930123456"))
  }
}
