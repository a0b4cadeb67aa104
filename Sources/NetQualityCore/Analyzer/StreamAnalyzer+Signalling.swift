/// Call signalling on the capture side: each SIP message is parsed once, its SDP teaches the
/// streams' clock rates (`learnMedia`) and the message goes to the journal the tick's call
/// detection reads (`CallSignalling`); ICE checks join it from `ingestSTUN`.
extension StreamAnalyzer {
  /// A UDP payload that did not demultiplex as media: SIP, when it looks like it (any port).
  mutating func ingestSignalling(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    guard SIPMessage.looksLikeSIP(payload) else { return }
    switch SIPMessage.parse(payload, framing: .datagram) {
    case .message(let message, _):
      noteSIP(message, source: datagram.source, destination: datagram.destination, at: time)
    case .malformed(let reason):
      calls.malformed(reason)
    case .incomplete, .notSIP:
      break
    }
  }

  /// A TCP segment: SIP over TCP (RFC 3261 section 18.3) on any port, or SIP over TLS on 5061
  /// (section 26.2), which is encrypted and only counted.
  mutating func ingestTCP(
    _ frame: UnsafeRawBufferPointer, datagram: UDPDatagram, sequence: UInt32,
    at time: CaptureTime
  ) {
    guard datagram.capturedPayloadLength > 0 else { return }
    let payload = frame.window(from: datagram.payloadOffset, count: datagram.capturedPayloadLength)
    if datagram.sourcePort == Self.sipTLSPort || datagram.destinationPort == Self.sipTLSPort {
      calls.counters.sipTLSSegments += 1
      return
    }
    let continues =
      !calls.tcp.connections.isEmpty
      && calls.tcp.connections[.init(source: datagram.source, destination: datagram.destination)]
        != nil
    guard continues || SIPMessage.looksLikeSIP(payload) else { return }
    calls.counters.sipTCPSegments += 1
    let output = calls.tcp.segment(
      payload, sequence: sequence, source: datagram.source, destination: datagram.destination,
      at: time)
    for reason in output.malformed { calls.malformed(reason) }
    calls.counters.sipTCPReassembled += Int64(output.reassembled)
    for message in output.messages {
      noteSIP(message, source: datagram.source, destination: datagram.destination, at: time)
    }
  }

  /// RFC 3261 section 26.2: the default port of SIP over TLS.
  static let sipTLSPort: UInt16 = 5061

  private mutating func noteSIP(
    _ message: SIPMessage, source: Endpoint, destination: Endpoint, at time: CaptureTime
  ) {
    if let description = message.sessionDescription { learnMedia(description, at: time) }
    calls.record(message, source: source, destination: destination, at: time)
  }

  /// An ICE check seen in `ingestSTUN`: a Binding request with a USERNAME.
  mutating func noteICECheck(_ message: STUNMessage, datagram: UDPDatagram, at time: CaptureTime) {
    guard let hash = message.iceSessionHash else { return }
    calls.counters.iceChecks += 1
    calls.append(
      .ice(
        SignallingJournal.ICECheck(
          time: time, source: datagram.source, destination: datagram.destination,
          sessionHash: hash)))
  }

  /// The signalling since the last call, for the tick (see `StreamHarvest.signalling`).
  public mutating func takeSignalling() -> SignallingJournal {
    calls.takeJournal()
  }

  /// The capture side's signalling counters.
  public var signallingCounters: SignallingCounters { calls.counters }
}
