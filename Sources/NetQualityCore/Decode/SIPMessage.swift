/// The parts of a SIP message (RFC 3261 section 7) that call detection reads: the start line,
/// the dialog's identifiers (Call-ID, the From and To tags), the users of From and To, the
/// CSeq, the top Via's branch, and an SDP body.
///
/// SIP is hostile input: every length is bounded (`Limits`), a message that breaks them or
/// lacks what a dialog needs is `malformed` with a reason (counted, never guessed at), and no
/// field is read past the bytes given.
public struct SIPMessage: Sendable, Equatable {
  /// The request's method, or for a response the method of its CSeq (RFC 3261 section 8.1.1.5).
  public var method: SIPMethod
  /// A response's status code (100...699); nil for a request.
  public var statusCode: Int?
  public var callID: String
  public var fromTag: String?
  public var toTag: String?
  /// The user parts of the From and To URIs (`alice` of `sip:alice@example.com`, the number of
  /// a `tel:` URI), unmasked: the engine masks them before they leave it (`UserMasking`).
  public var fromUser: String?
  public var toUser: String?
  public var cseq: UInt32
  /// The top Via's branch (RFC 3261 section 8.1.1.7): a transaction's identifier.
  public var viaBranch: String?
  /// The SDP body, when the message carries one (an offer or an answer, RFC 3264).
  public var sessionDescription: SessionDescription?
  /// What the message lacks to be placed in a dialog (no Call-ID, no usable CSeq): such a
  /// message still gives its SDP's clock rates, and is counted malformed by call detection.
  public var dialogDefect: SIPMalformedReason?

  public var isRequest: Bool { statusCode == nil }

  /// Bounds on what one message may hold.
  public enum Limits {
    /// The start line and headers together (RFC 3261 sets no limit; 16 KB is beyond any user
    /// agent's INVITE with a long Via and Record-Route stack).
    public static let headerBytes = 16_384
    public static let headerLines = 256
    /// Call-ID, tags, branch and users (RFC 3261 sets no limit; real ones are under 100).
    public static let fieldCharacters = 256
    /// A body: SDP of many media lines is a few kilobytes.
    public static let bodyBytes = 65_536
  }

  /// What parsing made of the bytes.
  public enum Parse: Sendable, Equatable {
    /// A message, and how many bytes it took (for a stream of several).
    case message(SIPMessage, length: Int)
    /// The start of a message whose headers or body are not all there yet (a TCP stream).
    case incomplete
    /// Not SIP at all.
    case notSIP
    /// SIP that breaks the grammar or the bounds.
    case malformed(SIPMalformedReason)
  }

  /// How the message arrived: a datagram holds one message, a body without Content-Length
  /// runs to its end (RFC 3261 section 18.3); in a stream, Content-Length frames the message.
  public enum Framing: Sendable {
    case datagram
    case stream
  }

  /// Whether the bytes start like a SIP request line (`METHOD sip:`...) or a status line
  /// (`SIP/2.0 `): the cheap test before parsing.
  public static func looksLikeSIP(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count >= 12 else { return false }
    let first = bytes.byte(at: 0)
    guard first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z") else { return false }
    if bytes.hasPrefix("SIP/2.0 ") { return true }
    // A method token, a space, then a sip:, sips: or tel: URI.
    var index = 0
    while index < min(bytes.count, 20), Self.isTokenByte(bytes.byte(at: index)) { index += 1 }
    guard index > 0, index < bytes.count, bytes.byte(at: index) == UInt8(ascii: " ") else {
      return false
    }
    let rest = bytes.window(from: index + 1, count: bytes.count - index - 1)
    return rest.hasPrefix("sip:", caseInsensitive: true)
      || rest.hasPrefix("sips:", caseInsensitive: true)
      || rest.hasPrefix("tel:", caseInsensitive: true)
  }

  /// Parses the message at the start of `bytes`.
  public static func parse(_ bytes: UnsafeRawBufferPointer, framing: Framing) -> Parse {
    guard looksLikeSIP(bytes) else { return .notSIP }
    // The end of the headers: the first empty line (CRLF CRLF, or LF LF which RFC 3261 section
    // 7.5 asks receivers to accept).
    let searched = min(bytes.count, Limits.headerBytes)
    var headerEnd: Int?
    var bodyStart = 0
    var index = 0
    while index + 1 < searched {
      if bytes.byte(at: index) == 0x0A {
        let next = bytes.byte(at: index + 1)
        if next == 0x0A {
          (headerEnd, bodyStart) = (index + 1, index + 2)
          break
        }
        if next == 0x0D && index + 2 < bytes.count && bytes.byte(at: index + 2) == 0x0A {
          (headerEnd, bodyStart) = (index + 1, index + 3)
          break
        }
      }
      index += 1
    }
    guard let headerEnd else {
      if bytes.count >= Limits.headerBytes { return .malformed(.headerTooLong) }
      // A datagram without the empty line: its headers run to the end (a body-less message
      // whose sender left the final CRLF out is still readable); a stream waits for more.
      if case .stream = framing { return .incomplete }
      return parseHeaders(bytes, headerEnd: bytes.count, bodyStart: bytes.count, framing: framing)
    }
    return parseHeaders(bytes, headerEnd: headerEnd, bodyStart: bodyStart, framing: framing)
  }

  private static func parseHeaders(
    _ bytes: UnsafeRawBufferPointer, headerEnd: Int, bodyStart: Int, framing: Framing
  ) -> Parse {
    let text = String(decoding: bytes.window(from: 0, count: headerEnd), as: UTF8.self)
    var lines: [Substring] = []
    // "\r\n" is one Character: lines split on any newline.
    for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
      if line.first == " " || line.first == "\t", !lines.isEmpty {
        // Folded onto the previous header (RFC 3261 section 7.3.1): the same value.
        lines[lines.count - 1] = Substring(
          lines[lines.count - 1] + " " + line.drop { $0 == " " || $0 == "\t" })
        continue
      }
      lines.append(line)
      if lines.count > Limits.headerLines { return .malformed(.tooManyHeaders) }
    }
    guard let startLine = lines.first else { return .malformed(.startLine) }
    var message = SIPMessage(
      method: .other, statusCode: nil, callID: "", cseq: 0, sessionDescription: nil,
      dialogDefect: nil)
    var requestMethod: SIPMethod?
    if startLine.hasPrefix("SIP/2.0 ") {
      let fields = startLine.split(separator: " ", maxSplits: 2)
      guard fields.count >= 2, fields[1].count == 3, let code = Int(fields[1]),
        (100...699).contains(code)
      else { return .malformed(.startLine) }
      message.statusCode = code
    } else {
      let fields = startLine.split(separator: " ")
      guard fields.count == 3, fields[2] == "SIP/2.0" else { return .malformed(.startLine) }
      requestMethod = SIPMethod(token: fields[0])
    }
    var cseqMethod: SIPMethod?
    var contentLength: Int?
    var contentType = ""
    var seen: Set<String> = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { return .malformed(.headerLine) }
      let name = line[..<colon].trimmingWhitespace().lowercased()
      let value = line[line.index(after: colon)...].trimmingWhitespace()
      let header = Self.compactForms[name] ?? name
      // The first of a single-valued header counts (a second Call-ID is a forgery or a bug);
      // Via: the top one, whose branch names the transaction.
      guard !seen.contains(header) else { continue }
      switch header {
      case "call-id":
        guard value.count <= Limits.fieldCharacters else { return .malformed(.fieldTooLong) }
        message.callID = String(value)
      case "from", "to":
        guard value.count <= Limits.headerBytes else { return .malformed(.fieldTooLong) }
        let address = NameAddress(value)
        if let tag = address.tag, tag.count > Limits.fieldCharacters {
          return .malformed(.fieldTooLong)
        }
        let user = address.user.map { String($0.prefix(Limits.fieldCharacters)) }
        if header == "from" {
          (message.fromTag, message.fromUser) = (address.tag.map(String.init), user)
        } else {
          (message.toTag, message.toUser) = (address.tag.map(String.init), user)
        }
      case "cseq":
        // CSeq: a 32-bit sequence number and the method (RFC 3261 section 20.16).
        let fields = value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if fields.count == 2, let number = UInt32(fields[0]) {
          message.cseq = number
          cseqMethod = SIPMethod(token: fields[1])
        }
      case "via":
        let top = value.split(separator: ",", maxSplits: 1).first ?? value
        if let branch = Self.parameter("branch", in: top) {
          guard branch.count <= Limits.fieldCharacters else { return .malformed(.fieldTooLong) }
          message.viaBranch = String(branch)
        }
      case "content-length":
        guard let length = Int(value), length >= 0 else { return .malformed(.contentLength) }
        contentLength = length
      case "content-type":
        contentType = value.lowercased()
      default:
        continue
      }
      seen.insert(header)
    }
    if message.callID.isEmpty {
      message.dialogDefect = .missingCallID
    } else if cseqMethod == nil {
      message.dialogDefect = .cseq
    } else if let requestMethod, requestMethod != cseqMethod {
      // A request's CSeq names its own method (RFC 3261 section 8.1.1.5).
      message.dialogDefect = .cseq
    }
    message.method = requestMethod ?? cseqMethod ?? .other
    // The body: Content-Length bytes after the headers. In a datagram a missing length means
    // the rest, and a length beyond the datagram (a snap length, or a liar) gives what is
    // there; in a stream the length is required and the message waits for its body.
    let available = bytes.count - bodyStart
    let bodyLength: Int
    switch framing {
    case .datagram:
      bodyLength = min(contentLength ?? available, available)
    case .stream:
      guard let contentLength else { return .malformed(.contentLength) }
      guard contentLength <= Limits.bodyBytes else { return .malformed(.contentLength) }
      guard contentLength <= available else { return .incomplete }
      bodyLength = contentLength
    }
    let length = bodyStart + bodyLength
    guard bodyLength > 0, bodyLength <= Limits.bodyBytes else {
      return .message(message, length: length)
    }
    let body = bytes.window(from: bodyStart, count: bodyLength)
    message.sessionDescription = Self.sessionDescription(in: body, contentType: contentType)
    return .message(message, length: length)
  }

  /// SDP in a body: `application/sdp`, a body that starts `v=` without a type, or the SDP part
  /// of a multipart body (found by its `v=0` line; RFC 5621 message bodies).
  static func sessionDescription(in body: UnsafeRawBufferPointer, contentType: String)
    -> SessionDescription?
  {
    let startsWithVersion =
      body.count >= 2 && body.byte(at: 0) == UInt8(ascii: "v")
      && body.byte(at: 1) == UInt8(ascii: "=")
    if startsWithVersion || contentType.hasPrefix("application/sdp") {
      return SessionDescription.parseAll(String(decoding: body, as: UTF8.self))
    }
    guard contentType.hasPrefix("multipart/") else { return nil }
    guard let start = body.firstOffset(of: Array("\nv=0".utf8), from: 0) else { return nil }
    let end = body.firstOffset(of: Array("\n--".utf8), from: start + 1) ?? body.count
    return SessionDescription.parseAll(
      String(decoding: body.window(from: start + 1, count: end - start - 1), as: UTF8.self))
  }

  /// RFC 3261 section 7.3.3 compact forms of the headers read here.
  static let compactForms: [String: String] = [
    "i": "call-id", "f": "from", "t": "to", "v": "via", "l": "content-length",
    "c": "content-type",
  ]

  /// A `;name=value` parameter of a header value (case-insensitive name).
  static func parameter(_ name: String, in value: Substring) -> Substring? {
    for part in value.split(separator: ";").dropFirst() {
      let pair = part.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == name else { continue }
      return pair[1].trimmingWhitespace()
    }
    return nil
  }

  /// RFC 3261 section 25.1 token characters (those a method name uses).
  static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "%"),
      UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "`"),
      UInt8(ascii: "'"), UInt8(ascii: "~"):
      true
    default: false
    }
  }
}

/// The SIP methods call detection tells apart (RFC 3261 section 27.4 and its extensions).
public enum SIPMethod: String, Sendable, CaseIterable {
  case invite = "INVITE"
  case ack = "ACK"
  case bye = "BYE"
  case cancel = "CANCEL"
  case prack = "PRACK"
  case update = "UPDATE"
  case info = "INFO"
  case options = "OPTIONS"
  case register = "REGISTER"
  case refer = "REFER"
  case notify = "NOTIFY"
  case subscribe = "SUBSCRIBE"
  case message = "MESSAGE"
  case other = "OTHER"

  /// Method names are case-sensitive (RFC 3261 section 7.1).
  init(token: Substring) {
    self = SIPMethod(rawValue: String(token)).flatMap { $0 == .other ? nil : $0 } ?? .other
  }
}

/// Why a SIP message was not used; each is counted (`SignallingCounters`).
public enum SIPMalformedReason: String, Sendable, CaseIterable {
  case startLine = "start_line"
  case headerLine = "header_line"
  case headerTooLong = "header_too_long"
  case tooManyHeaders = "too_many_headers"
  case fieldTooLong = "field_too_long"
  case missingCallID = "missing_call_id"
  case cseq = "cseq"
  case contentLength = "content_length"
  /// A TCP stream's message outgrew its reassembly buffer.
  case reassembly = "reassembly"
}

/// A From or To value: `"Name" <sip:user@host;uri-params>;tag=x` or `sip:user@host;tag=x`
/// (RFC 3261 section 20.10: without angle brackets, everything after the first semicolon is a
/// header parameter).
struct NameAddress {
  var user: Substring?
  var tag: Substring?

  init(_ value: Substring) {
    var rest = value
    // A quoted display name may hold anything, angle brackets included.
    if rest.first == "\"" {
      var escaped = false
      var end: Substring.Index?
      for index in rest.indices.dropFirst() {
        if escaped {
          escaped = false
        } else if rest[index] == "\\" {
          escaped = true
        } else if rest[index] == "\"" {
          end = index
          break
        }
      }
      rest = end.map { rest[rest.index(after: $0)...] } ?? ""
    }
    let uri: Substring
    let parameters: Substring
    if let open = rest.firstIndex(of: "<") {
      let inner = rest[rest.index(after: open)...]
      let close = inner.firstIndex(of: ">") ?? inner.endIndex
      uri = inner[..<close]
      parameters = close < inner.endIndex ? inner[inner.index(after: close)...] : ""
    } else {
      let semicolon = rest.firstIndex(of: ";") ?? rest.endIndex
      uri = rest[..<semicolon]
      parameters = rest[semicolon...]
    }
    user = Self.user(of: uri.trimmingWhitespace())
    tag = SIPMessage.parameter("tag", in: " " + parameters).flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The user part of a sip:, sips: or tel: URI (RFC 3261 section 19.1.1, RFC 3966), without
  /// its parameters; nil when there is none.
  static func user(of uri: Substring) -> Substring? {
    guard let colon = uri.firstIndex(of: ":") else { return nil }
    let scheme = uri[..<colon].lowercased()
    let rest = uri[uri.index(after: colon)...]
    let user: Substring
    switch scheme {
    case "sip", "sips":
      guard let at = rest.firstIndex(of: "@") else { return nil }
      user = rest[..<at]
    case "tel":
      user = rest
    default:
      return nil
    }
    let bare = user.prefix { $0 != ";" && $0 != ":" }
    return bare.isEmpty ? nil : bare
  }
}

extension Substring {
  func trimmingWhitespace() -> Substring {
    var result = self
    while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
    while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
    return result
  }
}

extension UnsafeRawBufferPointer {
  /// Where `needle` first occurs at or after `from`.
  func firstOffset(of needle: [UInt8], from: Int) -> Int? {
    guard !needle.isEmpty, count >= needle.count else { return nil }
    var index = from
    while index + needle.count <= count {
      if byte(at: index) == needle[0] {
        var matched = true
        for offset in 1..<needle.count where byte(at: index + offset) != needle[offset] {
          matched = false
          break
        }
        if matched { return index }
      }
      index += 1
    }
    return nil
  }

  /// Whether the bytes start with `prefix` (ASCII), optionally ignoring case.
  func hasPrefix(_ prefix: StaticString, caseInsensitive: Bool = false) -> Bool {
    let count = prefix.utf8CodeUnitCount
    guard self.count >= count else { return false }
    let start = prefix.utf8Start
    for index in 0..<count {
      var byte = self.byte(at: index)
      var expected = start[index]
      if caseInsensitive {
        if byte >= 65 && byte <= 90 { byte += 32 }
        if expected >= 65 && expected <= 90 { expected += 32 }
      }
      guard byte == expected else { return false }
    }
    return true
  }
}
