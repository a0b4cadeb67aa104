/// The datagram whose RTCP is being visited.
struct RTCPContext {
  var source = Endpoint(address: IPAddress(ipv4: 0), port: 0)
  var destination = Endpoint(address: IPAddress(ipv4: 0), port: 0)
  var arrivalNanoseconds: Int64 = 0
}

/// The analyser visits RTCP itself, attaching each part to the streams it describes.
extension StreamAnalyzer: RTCPVisitor {
  mutating func ingestRTCP(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    switch RTCPCompound.framing(payload) {
    case .compound:
      break
    case .firstHeaderOnly:
      // SRTCP or a trailer: RTCP all the same (it keeps a session alive), but its body is
      // encrypted or untrustworthy, so nothing beyond the count is taken from it.
      counters.rtcpPackets += 1
      counters.unparsedRTCPPackets += 1
      recordRTCP(from: datagram.sourceAddress, at: time)
      recordEncryptedFeedback(payload, datagram: datagram, at: time)
      return
    case .invalid:
      // With a standard packet type this was meant to be RTCP and is a decode error; otherwise
      // it is some other UDP that merely looked like it.
      if (RTCPCompound.senderReport...RTCPCompound.extendedReport).contains(payload.byte(at: 1)) {
        decodeErrors.count(.rtcpLength)
      }
      return
    }
    counters.rtcpPackets += 1
    rtcpContext = RTCPContext(
      source: datagram.source, destination: datagram.destination,
      arrivalNanoseconds: time.nanosecondsSinceEpoch)
    recordRTCP(from: datagram.sourceAddress, at: time)
    RTCPCompound.parse(payload, visitor: &self)
  }

  /// Adds an RTCP arrival to its sender's cadence, in its slot (a dictionary's in-place
  /// `dictionary[key]?.record(time)` went through its modify coroutines, which allocate their
  /// frames: three heap allocations per RTCP packet, found by scripts/check-allocations.sh).
  mutating func recordRTCP(from address: IPAddress, at time: CaptureTime) {
    addresses.update(address) { facts in
      if facts.cadence == nil {
        facts.cadence = RTCPCadence(first: time)
      } else {
        facts.cadence?.record(time)
      }
    }
  }

  /// Streams with `ssrc` sent from `sender`. An RTCP packet's own sources are sent by the RTCP
  /// sender; the sources its report blocks describe are sent by the RTCP receiver.
  /// Streams between exactly these addresses win; failing that (NAT, a relay), any stream
  /// with the SSRC from the sender.
  ///
  /// Inlined: called from the analyser's mutating methods (per packet, per stream and
  /// harvest), a call copied the whole analyser (2.5 KB) into a temporary (Swift passes a
  /// struct this large by address; perf, issue 37).
  @inline(__always)
  func streamIndices(ssrc: UInt32, sentFrom sender: IPAddress, to receiver: IPAddress)
    -> StreamMatches
  {
    var exact = StreamMatches()
    var loose = StreamMatches()
    for candidate in streamsBySSRC.candidates(tag: StreamKey.ssrcTableTag(ssrc)) {
      let key = streams[candidate].key
      guard key.ssrc == ssrc, key.sourceAddress == sender else { continue }
      if key.destinationAddress == receiver {
        exact.append(Int32(candidate))
      } else {
        loose.append(Int32(candidate))
      }
    }
    return exact.isEmpty ? loose : exact
  }

  public mutating func senderInfo(_ info: RTCPSenderInfo) {
    let time = CaptureTime(nanosecondsSinceEpoch: rtcpContext.arrivalNanoseconds)
    let sender = SenderKey(address: rtcpContext.source.address, ssrc: info.ssrc)
    senderReports[sender, default: SenderReportHistory()].add(
      compactNTP: info.compactNTP, arrivalNanoseconds: rtcpContext.arrivalNanoseconds)
    for index in streamIndices(
      ssrc: info.ssrc, sentFrom: rtcpContext.source.address, to: rtcpContext.destination.address)
    {
      updateFeedback(ofStream: index) { feedback in
        feedback.senderReports += 1
        feedback.lastSenderRTCPTime = time
        feedback.lastSenderPacketCount = info.packetCount
        feedback.lastSenderOctetCount = info.octetCount
      }
    }
  }

  public mutating func reportBlock(_ block: RTCPReportBlock) {
    // The block describes media the RTCP sender receives, i.e. sent by the RTCP receiver.
    let mediaSender = rtcpContext.destination.address
    let indices = streamIndices(
      ssrc: block.sourceSSRC, sentFrom: mediaSender, to: rtcpContext.source.address)
    if indices.isEmpty { counters.unmatchedReportBlocks += 1 }
    let roundTrip = senderReports[SenderKey(address: mediaSender, ssrc: block.sourceSSRC)]?
      .roundTripSeconds(
        lastSR: block.lastSR, delaySinceLastSR: block.delaySinceLastSR,
        arrivalNanoseconds: rtcpContext.arrivalNanoseconds)
    let time = CaptureTime(nanosecondsSinceEpoch: rtcpContext.arrivalNanoseconds)
    for index in indices {
      let sent = streams[Int(index)].packets
      let counts = streams[Int(index)].counts
      let lost = max(0, counts.expected - counts.counted)
      var recorded = true
      updateFeedback(ofStream: index) { feedback in
        recorded = feedback.record(block, at: time, streamPackets: sent, streamLost: lost)
        if recorded, let roundTrip { feedback.roundTrip.add(roundTrip, at: time) }
      }
      if !recorded { counters.implausibleReportBlocks += 1 }
    }
  }

  public mutating func canonicalName(ssrc: UInt32, text: UnsafeRawBufferPointer) {
    for index in streamIndices(
      ssrc: ssrc, sentFrom: rtcpContext.source.address, to: rtcpContext.destination.address)
    {
      updateFeedback(ofStream: index) { feedback in
        // Allocate only when the name changes, not on every SDES.
        if let current = feedback.canonicalName, current.utf8.elementsEqual(text) { return }
        feedback.canonicalName = String(decoding: text, as: UTF8.self)
      }
    }
  }

  public mutating func goodbye(ssrc: UInt32) {
    for index in streamIndices(
      ssrc: ssrc, sentFrom: rtcpContext.source.address, to: rtcpContext.destination.address)
    {
      let time = CaptureTime(nanosecondsSinceEpoch: rtcpContext.arrivalNanoseconds)
      updateFeedback(ofStream: index) { $0.goodbyeTime = time }
    }
  }

  public mutating func application(ssrc: UInt32, name: UInt32) {
    for index in streamIndices(
      ssrc: ssrc, sentFrom: rtcpContext.source.address, to: rtcpContext.destination.address)
    {
      updateFeedback(ofStream: index) { $0.appPackets += 1 }
    }
  }

  public mutating func feedback(_ message: RTCPFeedback) {
    guard message.isPlausible else {
      decodeErrors.count(.rtcpFeedback)
      return
    }
    recordFeedback(message)
    for index in streamIndices(
      ssrc: message.mediaSSRC, sentFrom: rtcpContext.destination.address,
      to: rtcpContext.source.address)
    {
      updateFeedback(ofStream: index) { $0.record(message) }
    }
  }

  public mutating func voipMetrics(_ metrics: RTCPVoIPMetrics) {
    for index in streamIndices(
      ssrc: metrics.sourceSSRC, sentFrom: rtcpContext.destination.address,
      to: rtcpContext.source.address)
    {
      updateFeedback(ofStream: index) { $0.voipMetrics = metrics }
    }
  }
}

/// Up to eight stream indices, without allocating: the RTCP path attaches reports to streams
/// per packet too.
struct StreamMatches: Sequence {
  static let capacity = 8
  private var storage = InlineArray<8, Int32>(repeating: 0)
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  mutating func append(_ index: Int32) {
    guard count < Self.capacity else { return }
    storage[count] = index
    count += 1
  }

  struct Iterator: IteratorProtocol {
    let matches: StreamMatches
    var position = 0

    mutating func next() -> Int32? {
      guard position < matches.count else { return nil }
      defer { position += 1 }
      return matches.storage[position]
    }
  }

  func makeIterator() -> Iterator { Iterator(matches: self) }
}

extension StreamAnalyzer {
  /// What RTCP said about the stream at `index` so far (nothing when it had none).
  func feedback(ofStream index: Int) -> ReceptionFeedback {
    let slot = streams[index].feedbackSlot
    return slot >= 0 ? feedbacks[slot] : ReceptionFeedback()
  }

  /// The last RTCP packet from the stream's sender, if any.
  @inline(__always)
  func lastSenderRTCPTime(ofStream index: Int) -> CaptureTime? {
    let slot = streams[index].feedbackSlot
    return slot >= 0 ? feedbacks[slot].lastSenderRTCPTime : nil
  }

  /// Changes the RTCP details of the stream at `index`, giving it a slot at its first RTCP.
  mutating func updateFeedback(ofStream index: Int32, _ change: (inout ReceptionFeedback) -> Void) {
    var slot = streams[Int(index)].feedbackSlot
    if slot < 0 {
      slot = feedbacks.take()
      streams[Int(index)].feedbackSlot = slot
    }
    change(&feedbacks[slot])
  }

  /// Gives back the RTCP details of a stream being forgotten.
  mutating func releaseFeedback(ofStream index: Int) {
    let slot = streams[index].feedbackSlot
    guard slot >= 0 else { return }
    streams[index].feedbackSlot = -1
    feedbacks.release(slot)
  }
}
