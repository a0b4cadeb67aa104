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
    /// The `m=` line's formats, in order of preference (RFC 8866 section 5.14): the first is
    /// what the answerer sends (RFC 3264 section 6.1).
    public var payloadTypes: [UInt8] = []
    /// `a=sendrecv`, `sendonly`, `recvonly` or `inactive` (RFC 3264 section 5.1), at media
    /// level or else session level; sendrecv when neither says.
    public var direction: MediaDirection = .sendrecv

    /// The format the first payload type names: its `rtpmap` name, or the RFC 3551 name of a
    /// static payload type.
    public var firstEncodingName: String? {
      guard
        let first = payloadTypes.first(where: { type in
          payloadFormats[type]?.encodingName.lowercased() != "telephone-event"
        })
      else { return nil }
      return payloadFormats[first]?.encodingName ?? StaticPayloadTypes.name(first)
    }
  }

  /// RFC 3264 section 5.1 (and 8.4: putting a stream on hold).
  public enum MediaDirection: String, Sendable, Equatable {
    case sendrecv, sendonly, recvonly, inactive
  }

  public struct PayloadFormat: Sendable, Equatable {
    public var encodingName: String
    public var clockRateHz: Int
  }

  /// The media with a connection address and a port: where streams are received.
  public var media: [Media]
  /// Every `m=` line, those with port 0 (rejected or removed, RFC 3264 section 8.2) or the null
  /// address 0.0.0.0 (hold the RFC 2543 way, RFC 3264 section 8.4) included.
  public var allMedia: [Media] = []

  public init(media: [Media], allMedia: [Media]? = nil) {
    self.media = media
    self.allMedia = allMedia ?? media
  }

  /// Whether every stream is held: no `m=` line the offerer would receive on and whose
  /// sender sends (sendonly, recvonly, inactive, the null address or port 0 on each).
  public var isHold: Bool {
    !allMedia.isEmpty
      && allMedia.allSatisfy {
        $0.direction != .sendrecv || $0.endpoint.port == 0
          || $0.endpoint.address == IPAddress(ipv4: 0)
      }
  }

  /// The SDP body of a SIP message over UDP (see `SIPMessage`), when it has media with an
  /// address and a port; nil otherwise.
  public static func fromSIPMessage(_ payload: UnsafeRawBufferPointer) -> SessionDescription? {
    guard case .message(let message, _) = SIPMessage.parse(payload, framing: .datagram),
      let description = message.sessionDescription, !description.media.isEmpty
    else { return nil }
    return description
  }

  /// Parses SDP text. Session-level `c=` applies to every `m=` without its own, and so does a
  /// session-level direction attribute. Nil when no `m=` line has an address and a port (see
  /// `parseAll` for the lines a hold or a rejection leaves).
  public static func parse(_ text: String) -> SessionDescription? {
    guard let description = parseAll(text), !description.media.isEmpty else { return nil }
    return description
  }

  /// More `m=` lines than any call offers (audio, video, data, and their bundled variants).
  static let maxMedia = 32

  /// Parses SDP text keeping every `m=` line (`allMedia`); nil when there is none.
  public static func parseAll(_ text: String) -> SessionDescription? {
    var sessionAddress: IPAddress?
    var sessionDirection: MediaDirection?
    var mediaDirections: [MediaDirection?] = []
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
        // At most `maxMedia` lines are kept (hostile input: a body of nothing but m= lines).
        guard media.count < Self.maxMedia, fields.count >= 3,
          let portText = fields[1].split(separator: "/", omittingEmptySubsequences: false).first,
          let port = UInt16(portText)
        else { continue }
        // At most 64 formats: more is no SDP a user agent writes.
        let types = fields.dropFirst(3).prefix(64).compactMap { UInt8($0) }.filter { $0 < 128 }
        media.append(
          Media(
            kind: String(fields[0]),
            endpoint: Endpoint(address: sessionAddress ?? IPAddress(ipv4: 0), port: port),
            payloadFormats: [:], payloadTypes: Array(types)))
        mediaDirections.append(nil)
      case "a":
        if let direction = MediaDirection(rawValue: String(value)) {
          if media.isEmpty {
            sessionDirection = direction
          } else {
            mediaDirections[media.count - 1] = direction
          }
          continue
        }
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
    for index in media.indices {
      media[index].direction = mediaDirections[index] ?? sessionDirection ?? .sendrecv
    }
    guard !media.isEmpty else { return nil }
    let usable = media.filter { $0.endpoint.address != IPAddress(ipv4: 0) && $0.endpoint.port != 0 }
    return SessionDescription(media: usable, allMedia: media)
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
