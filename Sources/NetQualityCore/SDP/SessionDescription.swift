/// The parts of an SDP body (RFC 8866) the analyser uses: where each media stream is received
/// and which clock rate each dynamic payload type has.
public struct SessionDescription: Sendable, Equatable {
  public struct Media: Sendable, Equatable {
    /// `m=` media kind: audio, video, ...
    public var kind: String
    /// The connection address (`c=`) and the `m=` port: where this media is received.
    public var endpoint: Endpoint
    /// `a=rtpmap:` entries by payload type.
    public var payloadFormats: [UInt8: PayloadFormat]
  }

  public struct PayloadFormat: Sendable, Equatable {
    public var encodingName: String
    public var clockRateHz: Int
  }

  public var media: [Media]

  /// Finds an SDP body in a SIP message over UDP (RFC 3261 section 7: headers, an empty line,
  /// the body) and parses it. Returns nil when the payload is not SIP with SDP.
  public static func fromSIPMessage(_ payload: UnsafeRawBufferPointer) -> SessionDescription? {
    guard payload.count >= 16, looksLikeSIP(payload) else { return nil }
    // The body starts after the first CRLFCRLF (or LFLF, which RFC 3261 section 7.5 tolerates).
    var bodyStart: Int?
    var index = 0
    while index + 1 < payload.count {
      if payload.byte(at: index) == 0x0A {
        if payload.byte(at: index + 1) == 0x0A {
          bodyStart = index + 2
          break
        }
        if index + 2 < payload.count && payload.byte(at: index + 1) == 0x0D
          && payload.byte(at: index + 2) == 0x0A
        {
          bodyStart = index + 3
          break
        }
      }
      index += 1
    }
    guard let start = bodyStart, start + 3 <= payload.count,
      payload.byte(at: start) == UInt8(ascii: "v"), payload.byte(at: start + 1) == UInt8(ascii: "=")
    else { return nil }
    let body = String(
      decoding: payload.window(from: start, count: payload.count - start), as: UTF8.self)
    return parse(body)
  }

  /// A SIP request line (`METHOD sip:...`) or status line (`SIP/2.0 ...`).
  static func looksLikeSIP(_ payload: UnsafeRawBufferPointer) -> Bool {
    let first = payload.byte(at: 0)
    guard first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z") else { return false }
    let prefix = String(
      decoding: payload.window(from: 0, count: min(payload.count, 64)), as: UTF8.self)
    return prefix.hasPrefix("SIP/2.0 ") || prefix.contains(" sip:") || prefix.contains(" sips:")
  }

  /// Parses SDP text. Session-level `c=` applies to every `m=` without its own.
  public static func parse(_ text: String) -> SessionDescription? {
    var sessionAddress: IPAddress?
    var media: [Media] = []
    for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
      let line = rawLine.trimmingCharacters(in: " \t")
      guard line.count >= 2, line.dropFirst().first == "=" else { continue }
      let value = line.dropFirst(2)
      switch line.first {
      case "c":
        // c=IN IP4 192.0.2.1 (an optional /ttl suffix on multicast).
        let fields = value.split(separator: " ")
        guard fields.count >= 3,
          let address = IPAddress(fields[2].split(separator: "/").first ?? fields[2])
        else { continue }
        if media.isEmpty {
          sessionAddress = address
        } else {
          media[media.count - 1].endpoint.address = address
        }
      case "m":
        // m=audio 49170 RTP/AVP 0 8 97
        let fields = value.split(separator: " ")
        // The port may carry a "/count" suffix (RFC 8866 section 5.14); "/" alone has no port.
        guard fields.count >= 3,
          let portText = fields[1].split(separator: "/", omittingEmptySubsequences: false).first,
          let port = UInt16(portText)
        else { continue }
        media.append(
          Media(
            kind: String(fields[0]),
            endpoint: Endpoint(address: sessionAddress ?? IPAddress(ipv4: 0), port: port),
            payloadFormats: [:]))
      case "a":
        // a=rtpmap:97 AMR/8000/1
        guard value.hasPrefix("rtpmap:"), !media.isEmpty else { continue }
        let fields = value.dropFirst("rtpmap:".count).split(separator: " ", maxSplits: 1)
        guard fields.count == 2, let payloadType = UInt8(fields[0]), payloadType < 128 else {
          continue
        }
        let encoding = fields[1].split(separator: "/")
        guard encoding.count >= 2, let rate = Int(encoding[1]), rate > 0 else { continue }
        media[media.count - 1].payloadFormats[payloadType] = PayloadFormat(
          encodingName: String(encoding[0]), clockRateHz: rate)
      default:
        continue
      }
    }
    let usable = media.filter { $0.endpoint.address != IPAddress(ipv4: 0) && $0.endpoint.port != 0 }
    return usable.isEmpty ? nil : SessionDescription(media: usable)
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in characters: String) -> Substring {
    var result = self
    while let first = result.first, characters.contains(first) { result = result.dropFirst() }
    while let last = result.last, characters.contains(last) { result = result.dropLast() }
    return result
  }
}
