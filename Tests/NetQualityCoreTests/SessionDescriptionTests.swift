import XCTest

@testable import NetQualityCore

final class SessionDescriptionTests: XCTestCase {
  static let invite = """
    INVITE sip:bob@192.0.2.20 SIP/2.0\r
    Via: SIP/2.0/UDP 192.0.2.10:5060\r
    Content-Type: application/sdp\r
    Content-Length: 229\r
    \r
    v=0\r
    o=- 1 1 IN IP4 192.0.2.10\r
    s=-\r
    c=IN IP4 192.0.2.10\r
    t=0 0\r
    m=audio 40000 RTP/AVP 111 101\r
    a=rtpmap:111 opus/48000/2\r
    a=rtpmap:101 telephone-event/8000\r
    m=video 40002 RTP/AVP 96\r
    c=IN IP4 192.0.2.11\r
    a=rtpmap:96 H264/90000\r

    """

  func testSDPInSIPGivesEndpointsAndClockRates() throws {
    let description = try XCTUnwrap(
      Array(Self.invite.utf8).withUnsafeBytes { SessionDescription.fromSIPMessage($0) })
    XCTAssertEqual(description.media.count, 2)
    XCTAssertEqual(description.media[0].endpoint, Net.endpoint("192.0.2.10", 40_000))
    XCTAssertEqual(description.media[0].payloadFormats[111]?.clockRateHz, 48_000)
    XCTAssertEqual(description.media[0].payloadFormats[101]?.encodingName, "telephone-event")
    XCTAssertEqual(description.media[1].endpoint, Net.endpoint("192.0.2.11", 40_002))
    XCTAssertEqual(description.media[1].payloadFormats[96]?.clockRateHz, 90_000)
  }

  /// Found by the fuzzer: an `m=` port of "/" indexed an empty split.
  func testMalformedMediaLinesAreSkipped() {
    let text =
      "v=0\r\nc=IN IP4 192.0.2.1\r\nm=audio / RTP/AVP 0\r\nm=audio 5/2 RTP/AVP 0\r\nm=video\r\n"
    let description = SessionDescription.parse(text)
    XCTAssertEqual(description?.media.map(\.endpoint.port), [5])
  }

  func testSIPWithoutBodyAndOtherTextAreIgnored() {
    let bye = "BYE sip:bob@192.0.2.20 SIP/2.0\r\nContent-Length: 0\r\n\r\n"
    XCTAssertNil(Array(bye.utf8).withUnsafeBytes { SessionDescription.fromSIPMessage($0) })
    let http = "GET / HTTP/1.1\r\nHost: x\r\n\r\nv=0\r\nc=IN IP4 1.2.3.4\r\nm=audio 1 RTP/AVP 0\r\n"
    XCTAssertNil(Array(http.utf8).withUnsafeBytes { SessionDescription.fromSIPMessage($0) })
  }
}
