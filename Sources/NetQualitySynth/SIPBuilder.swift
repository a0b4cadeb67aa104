import NetQualityCore

/// SIP messages of a call (RFC 3261 section 7 grammar, RFC 3264 offers and answers), as bytes,
/// for tests and generated captures.
public struct SIPBuilder: Sendable {
  public var callID: String
  public var caller: Endpoint
  public var callee: Endpoint
  public var callerUser: String
  public var calleeUser: String
  public var callerTag: String
  public var calleeTag: String

  public init(
    callID: String, caller: Endpoint, callee: Endpoint, callerUser: String = "alice",
    calleeUser: String = "bob", callerTag: String = "a1", calleeTag: String = "b1"
  ) {
    self.callID = callID
    self.caller = caller
    self.callee = callee
    self.callerUser = callerUser
    self.calleeUser = calleeUser
    self.callerTag = callerTag
    self.calleeTag = calleeTag
  }

  /// An SDP body: one audio `m=` line received at `media`, with its formats and direction.
  public static func sdp(
    media: Endpoint, payloadTypes: [(UInt8, String)] = [(0, "PCMU/8000")],
    direction: String = "sendrecv"
  ) -> String {
    var lines = [
      "v=0", "o=- 1 1 IN IP4 \(media.address)", "s=-", "c=IN IP4 \(media.address)", "t=0 0",
      "m=audio \(media.port) RTP/AVP \(payloadTypes.map { String($0.0) }.joined(separator: " "))",
    ]
    for (type, format) in payloadTypes { lines.append("a=rtpmap:\(type) \(format)") }
    lines.append("a=\(direction)")
    return lines.joined(separator: "\r\n") + "\r\n"
  }

  /// A request from the caller (`fromCaller`) or the callee, in the dialog once `inDialog`.
  public func request(
    _ method: String, cseq: UInt32, fromCaller: Bool = true, inDialog: Bool = false,
    branch: String? = nil, sdp: String? = nil
  ) -> [UInt8] {
    let (from, to) = fromCaller ? (caller, callee) : (callee, caller)
    let (fromUser, toUser) = fromCaller ? (callerUser, calleeUser) : (calleeUser, callerUser)
    let (fromTag, toTag) = fromCaller ? (callerTag, calleeTag) : (calleeTag, callerTag)
    let toTagParameter = inDialog || !fromCaller ? ";tag=\(toTag)" : ""
    let cseqMethod = method == "ACK" || method == "CANCEL" ? method : method
    var headers = [
      "\(method) sip:\(toUser)@\(to) SIP/2.0",
      "Via: SIP/2.0/UDP \(from);branch=\(branch ?? "z9hG4bK-\(callID)-\(method)-\(cseq)")",
      "From: \"\(fromUser)\" <sip:\(fromUser)@\(from.address)>;tag=\(fromTag)",
      "To: <sip:\(toUser)@\(to.address)>\(toTagParameter)",
      "Call-ID: \(callID)",
      "CSeq: \(cseq) \(cseqMethod)",
      "Max-Forwards: 70",
    ]
    return message(&headers, sdp: sdp)
  }

  /// A response of the callee (or, `fromCallee` false, of the caller) to a request.
  public func response(
    _ status: Int, reason: String = "", cseq: UInt32, method: String = "INVITE",
    fromCallee: Bool = true, toTag: Bool? = nil, sdp: String? = nil
  ) -> [UInt8] {
    // The response's From and To are the request's: the request came from the other side.
    let (requester, responder) = fromCallee ? (caller, callee) : (callee, caller)
    let (requesterUser, responderUser) =
      fromCallee ? (callerUser, calleeUser) : (calleeUser, callerUser)
    let (requesterTag, responderTag) = fromCallee ? (callerTag, calleeTag) : (calleeTag, callerTag)
    let tagged = toTag ?? (status != 100)
    var headers = [
      "SIP/2.0 \(status) \(reason.isEmpty ? "Reason" : reason)",
      "Via: SIP/2.0/UDP \(requester);branch=z9hG4bK-\(callID)-\(method)-\(cseq)",
      "From: <sip:\(requesterUser)@\(requester.address)>;tag=\(requesterTag)",
      "To: <sip:\(responderUser)@\(responder.address)>\(tagged ? ";tag=\(responderTag)" : "")",
      "Call-ID: \(callID)",
      "CSeq: \(cseq) \(method)",
    ]
    return message(&headers, sdp: sdp)
  }

  private func message(_ headers: inout [String], sdp: String?) -> [UInt8] {
    if let sdp {
      headers.append("Content-Type: application/sdp")
      headers.append("Content-Length: \(sdp.utf8.count)")
    } else {
      headers.append("Content-Length: 0")
    }
    return Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + (sdp ?? "")).utf8)
  }
}
