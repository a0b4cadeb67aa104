/// What the clear parts of an encrypted WebRTC call tell: round trips from ICE checks, and the
/// end of the call. SRTCP hides receiver reports and BYE; STUN and DTLS record headers do not.
extension StreamAnalyzer {
  /// A STUN message, at the top level or relayed by TURN (the datagram's outer addresses). ICE
  /// connectivity and consent checks are Binding requests answered by their peer (RFC 8445
  /// section 7.2, RFC 7675 section 5.1, every 5 s or so): a request seen going to an address
  /// and the response coming back from it, with the same transaction ID, time the network
  /// beyond the capture point to that address and back. A Refresh with LIFETIME 0 releases a
  /// TURN allocation (RFC 8656 section 7.2): its client is ending the call.
  mutating func ingestSTUN(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    guard let message = STUNMessage(payload) else { return }
    if message.releasesAllocation {
      counters.turnAllocationsReleased += 1
      recordSessionEnd(.turnAllocationReleased, datagram: datagram, at: time)
      return
    }
    guard message.isBinding else { return }
    switch message.messageClass {
    case .request:
      stunTransactions.request(message, to: datagram.destinationAddress, at: time)
      noteICECheck(message, datagram: datagram, at: time)
    case .successResponse, .errorResponse:
      guard
        let seconds = stunTransactions.response(message, from: datagram.sourceAddress, at: time)
      else { return }
      counters.stunRoundTrips += 1
      addresses.update(datagram.sourceAddress) { facts in
        if facts.stun == nil { facts.stun = RoundTripStatistics() }
        facts.stun?.add(seconds, at: time)
      }
    case .indication:
      break
    }
  }

  /// A DTLS record (RFC 6347 section 4.1: content type, version, epoch, sequence, length).
  /// Content type 21 is an alert: after the handshake it is encrypted, but its type is not,
  /// and on an established DTLS-SRTP association an alert is close_notify or a fatal error,
  /// either of which ends it (RFC 5246 section 7.2).
  mutating func ingestDTLS(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    guard payload.count >= 13, payload.byte(at: 0) == 21 else { return }
    counters.dtlsAlerts += 1
    recordSessionEnd(.dtlsAlert, datagram: datagram, at: time)
  }

  /// Both ends of the datagram: whichever of them is the remote peer, its call ended.
  private mutating func recordSessionEnd(
    _ reason: SessionEnd.Reason, datagram: UDPDatagram, at time: CaptureTime
  ) {
    let end = SessionEnd(time: time, reason: reason)
    addresses.update(datagram.sourceAddress) { $0.end = end }
    addresses.update(datagram.destinationAddress) { $0.end = end }
    calls.append(
      .flowEnd(
        SignallingJournal.FlowEnd(
          source: datagram.source, destination: datagram.destination, end: end)))
  }
}
