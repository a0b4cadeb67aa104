/// The engine's first half: feeds captured frames through decoding and per-stream statistics.
///
/// Pure: it never reads a clock, a socket or a file. Give it frames with their capture times
/// (`ingest`) and ask for a `report()` at any point; the same frames always give the same
/// report. The per-packet path reads headers in place and allocates nothing once a stream
/// exists.
public struct StreamAnalyzer: Sendable {
  public struct Configuration: Sendable {
    /// Upper bound on tracked streams (validated and candidate); more are counted, not kept.
    public var maxStreams: Int
    /// Local networks, for the tx/rx direction of each stream.
    public var localNetworks: [NetworkPrefix]
    /// The agent's own probe traffic, kept out of the passive view.
    public var probeTraffic = ProbeTrafficFilter()

    public init(maxStreams: Int = 200_000, localNetworks: [NetworkPrefix] = []) {
      self.maxStreams = maxStreams
      self.localNetworks = localNetworks
    }
  }

  /// A reload may change it: a lower `maxStreams` keeps the streams tracked and refuses new
  /// ones until enough are forgotten.
  public internal(set) var configuration: Configuration
  var counters = CaptureCounters()
  var decodeErrors = DecodeErrorCounters()
  var table = StreamTable()
  var streams = ChunkedArray<RTPStream>()
  /// What RTCP said about each stream that had RTCP, by `RTPStream.feedbackSlot` (a stream
  /// without RTCP costs none of its 360 bytes).
  var feedbacks = SlotStore(empty: ReceptionFeedback())
  /// Media experience of video and audio streams, by `RTPStream.mediaSlot`
  /// (`StreamAnalyzer+Media.swift`), and the RTCP feedback between each pair of addresses.
  var videoMedia = SlotStore(empty: VideoFrameTracker())
  var audioMedia = SlotStore(empty: AudioMediaTracker())
  var feedbackByPair: [AddressPair: FeedbackCounts] = [:]
  /// The buffers of the streams whose clock rate is being inferred, by `RTPStream.inferenceSlot`
  /// (few streams at a time: only those of a payload type with no known clock).
  var inferences = SlotStore(empty: InferenceBuffer())
  /// Indices of forgotten streams, reused by new ones (see `forget(silentSince:)`).
  var freeIndices: [Int] = []
  var freeSet = SlotSet()
  /// Stream indices by SSRC (`StreamKey.ssrcTableTag`), for attaching RTCP to streams.
  var streamsBySSRC = StreamIndexTable()
  /// Stream indices by directed (source, destination) pair: the siblings a new stream is
  /// compared with to recognise retransmissions (`RepairCheck`), and the streams a validated
  /// one confirms (`confirm`).
  var streamsByFlow = StreamIndexTable()
  /// SDP media by the endpoint that receives it, with when it was last signalled or in use
  /// (forgotten like the streams, see `forget(silentSince:)`).
  var signalledMedia: [Endpoint: SignalledMedia] = [:]
  /// Bumped whenever new SDP arrives, so streams re-resolve their payload clocks.
  var signallingGeneration = 0
  /// Sender reports by (sender address, SSRC), for round trips from LSR/DLSR.
  var senderReports: [SenderKey: SenderReportHistory] = [:]
  /// The RTCP datagram being visited.
  var rtcpContext = RTCPContext()
  /// The capture interface of the frame being ingested (see `ingest(..., interface:)`).
  var currentInterface: UInt8 = 0
  /// Every packet time passes through it: monotonic, steps counted (see `CaptureClock`).
  public internal(set) var clock = CaptureClock()
  /// What is known of each address besides its streams: its RTCP cadence, the ICE round trips
  /// to it, the end of its call (`AnalyzedAddress`). Forgotten with the streams
  /// (`forget(silentSince:)`).
  var addresses = AnalyzedAddressTable()
  /// Per stream (by index): where the facts of its remote address were in `addresses` when the
  /// harvest last asked, else -1. Checked before use (`AnalyzedAddressTable.holds`), so one
  /// left by a forgotten stream or moved by a compaction is only looked up again. Beside the
  /// streams, not in their records: `RTPStream` has no 4 bytes free (384 bytes,
  /// `RecordSizeTests`).
  var remoteFactsSlots = ChunkedArray<Int32>()
  /// ICE Binding requests in flight.
  var stunTransactions = STUNTransactions()
  /// Call signalling (SIP over UDP and TCP, ICE checks) for the tick's call detection.
  var calls = CallSignalling()
  /// The live agent's window cut at capture timestamps (`StreamAnalyzer+Cut.swift`): armed for
  /// the next boundary, and made by the first packet stamped at or after it.
  var armedCut: WindowCut?
  var madeCut: MadeCut?
  var cutCount = 0
  /// The harvest the ticker scored and handed back (`recycle(_:)`), filled again by the next
  /// cut: its lists' memory is already there, where a new harvest each tick faulted in its
  /// pages again, on the capture thread (a fifth of the agent's harvest under churn, perf,
  /// issue 37).
  var spareHarvest: StreamHarvest?
  /// Where the live capture was blind (the kernel dropped its packets): no silence or loss is
  /// counted across it (`CaptureBlindness`).
  var blindness = CaptureBlindness()
  /// The sizes of the last harvest's lists: the next is given room for them at once
  /// (`harvest(into:forgetSilentSince:)`).
  var lastHarvestSizes = HarvestSizes()

  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  /// Applies reloaded settings; every stream is kept (see `configuration`).
  public mutating func reconfigure(_ newConfiguration: Configuration) {
    configuration = newConfiguration
  }

  /// Feeds one captured frame. `frame` holds the captured bytes, `originalLength` the length on
  /// the wire.
  /// Feeds a frame captured on interface number `interface` (the agent's index of its capture
  /// interfaces): a stream remembers the interface it was first seen on, so a link going down
  /// can be tied to the peers reached through it.
  @inline(__always)
  public mutating func ingest(
    frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType, at time: CaptureTime,
    interface: UInt8
  ) {
    currentInterface = interface
    let corrected = clock.correct(time)
    blindness.observe(interface: interface, at: corrected.nanosecondsSinceEpoch)
    ingest(
      frame: frame, originalLength: originalLength, linkType: linkType, atCorrected: corrected)
  }

  /// The kernel dropped packets of the live capture of `interface` (its statistics grew),
  /// noticed at wall-clock `time` before the capture reads on: the gap in its packets this
  /// leaves is a blind span (`CaptureBlindness`).
  public mutating func noticeCaptureDrops(interface: UInt8, at time: CaptureTime) {
    blindness.noticeDrops(interface: interface, at: correctedWallClock(time))
  }

  /// The blind spans found since the last harvest and those still open (for a window cut
  /// earlier, whose harvest could not know of them: `StreamHarvest.blindSpans`).
  public mutating func takeCaptureBlindSpans() -> [CaptureBlindSpan] {
    blindness.take()
  }

  /// The latest blind span of `interface`'s capture, and how many there were in all.
  public func captureBlindSpan(interface: UInt8) -> (latest: CaptureBlindSpan?, count: Int64) {
    (blindness.latest(interface: interface), blindness.spanCount)
  }

  @inline(__always)
  public mutating func ingest(
    frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType, at time: CaptureTime
  ) {
    ingest(
      frame: frame, originalLength: originalLength, linkType: linkType,
      atCorrected: clock.correct(time))
  }

  /// The corrected time of a packet stamped `time` (see `CaptureClock`), for a caller that
  /// must know it before feeding the packet (the timeline ticks on the corrected clock); feed
  /// the packet with `ingest(frame:originalLength:linkType:atCorrected:)` then.
  public mutating func correctTime(_ time: CaptureTime) -> CaptureTime {
    clock.correct(time)
  }

  /// The live agent's tick closing the window at wall-clock grid time `boundary`, on the
  /// corrected clock; `reading` is the wall clock read now, under the capture lock (see
  /// `CaptureClock.correctTick(_:reading:)`): a step of the host's clock shifts the tick like
  /// the packets, a late tick shifts nothing.
  public mutating func correctTick(_ boundary: CaptureTime, reading: CaptureTime) -> CaptureTime {
    clock.correctTick(boundary, reading: reading)
  }

  /// A wall-clock time on the corrected clock, for events the capture threads time themselves
  /// (a link going down).
  public func correctedWallClock(_ time: CaptureTime) -> CaptureTime {
    time.advanced(byNanoseconds: clock.offsetNanoseconds)
  }

  /// The time to feed a capture record whose timestamp is no time (a sub-second field out of
  /// range; see `CaptureCounters.badTimestampRecords`), counted: the latest packet's, as it
  /// arrived after it — neither a loss nor a jump — or `carried` (the field carried into the
  /// seconds) before any packet.
  public mutating func timeOfRecordWithBadTimestamp(carried: CaptureTime) -> CaptureTime {
    counters.badTimestampRecords += 1
    guard clock.latestNanoseconds >= 0 else { return carried }
    // The raw time that the clock maps to its latest.
    return CaptureTime(
      nanosecondsSinceEpoch: max(0, clock.latestNanoseconds &- clock.offsetNanoseconds))
  }

  /// Feeds a frame whose time `correctTime` already gave.
  public mutating func ingest(
    frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType,
    atCorrected time: CaptureTime
  ) {
    if let cut = armedCut, time >= cut.boundary { makeCut(cut) }
    counters.frames &+= 1
    var datagram = UDPDatagram()
    switch FrameDecoder(linkType: linkType).decode(
      frame, originalLength: originalLength, into: &datagram)
    {
    case .udp:
      counters.udpDatagrams &+= 1
      if datagram.isTruncated { counters.truncated += 1 }
      let payload = frame.window(
        from: datagram.payloadOffset, count: datagram.capturedPayloadLength)
      ingestUDP(payload, wireLength: datagram.payloadLength, datagram: &datagram, at: time)
    case .otherTransport:
      counters.otherTransport += 1
    case .tcp(let sequence):
      counters.otherTransport += 1
      ingestTCP(frame, datagram: datagram, sequence: sequence, at: time)
    case .notIP:
      counters.nonIP += 1
    case .fragment:
      counters.ipFragments += 1
    case .truncated:
      counters.truncated += 1
    case .malformed(let reason):
      decodeErrors.count(reason)
    }
  }

  /// `datagram` is in-out only so that it is passed by address, never changed: passed by
  /// value, the decoder's datagram was copied right after its fields were written, and the
  /// copy's wide loads waited on those narrow stores (a store-forwarding stall, 4 % of
  /// `analyze`'s time by `perf annotate`, issue 37).
  @inline(__always)
  mutating func ingestUDP(
    _ payload: UnsafeRawBufferPointer, wireLength: Int, datagram: inout UDPDatagram,
    at time: CaptureTime
  ) {
    if !configuration.probeTraffic.isEmpty && configuration.probeTraffic.matches(datagram) {
      counters.probePackets += 1
      return
    }
    switch PayloadKind.classify(payload) {
    case .rtp:
      ingestRTP(payload, wireLength: wireLength, datagram: &datagram, at: time)
    case .rtcp:
      ingestRTCP(payload, datagram: datagram, at: time)
    case .turnChannelData:
      // SIP requests start with letters in this range, and their first four bytes read as a
      // channel number and a length: "INVI" is channel 0x494E with 22,089 bytes, so an INVITE
      // of about 22 KB or more framed as ChannelData (issue 39: 2,000 INVITEs with 64 KB
      // bodies, none counted as SIP). What starts like a SIP request line (a method token, a
      // space, a sip:, sips: or tel: URI) is SIP: ChannelData's application data (RTP, RTCP,
      // STUN, DTLS) never puts a space and a URI four bytes in.
      guard !SIPMessage.looksLikeSIP(payload),
        let inner = TURNChannelData.applicationData(in: payload, wireLength: wireLength)
      else {
        ingestSignalling(payload, datagram: datagram, at: time)
        return
      }
      counters.turnChannelDataPackets += 1
      ingestRelayed(payload, inner: inner, datagram: datagram, at: time)
    case .stun:
      counters.stunPackets += 1
      if let inner = STUNIndication.applicationData(in: payload) {
        ingestRelayed(payload, inner: inner, datagram: datagram, at: time)
      } else {
        ingestSTUN(payload, datagram: datagram, at: time)
      }
    case .dtls:
      counters.dtlsPackets += 1
      ingestDTLS(payload, datagram: datagram, at: time)
    case .zrtp:
      break
    case .unknown:
      ingestSignalling(payload, datagram: datagram, at: time)
    }
  }

  /// RTP, RTCP, ICE checks or DTLS relayed by TURN, keyed by the outer datagram's addresses as
  /// Wireshark does.
  mutating func ingestRelayed(
    _ payload: UnsafeRawBufferPointer, inner: (offset: Int, length: Int), datagram: UDPDatagram,
    at time: CaptureTime
  ) {
    let captured = max(0, min(inner.length, payload.count - inner.offset))
    let application = payload.window(from: inner.offset, count: captured)
    switch PayloadKind.classify(application) {
    case .rtp:
      var datagram = datagram
      ingestRTP(application, wireLength: inner.length, datagram: &datagram, at: time)
    case .rtcp: ingestRTCP(application, datagram: datagram, at: time)
    case .stun: ingestSTUN(application, datagram: datagram, at: time)
    case .dtls:
      // DTLS is DTLS however it travels: its alerts are counted in either case.
      counters.dtlsPackets += 1
      ingestDTLS(application, datagram: datagram, at: time)
    default: break
    }
  }

  /// `datagram` is in-out only to be passed by address, as in `ingestUDP`.
  @inline(__always)
  mutating func ingestRTP(
    _ payload: UnsafeRawBufferPointer, wireLength: Int, datagram: inout UDPDatagram,
    at time: CaptureTime
  ) {
    // Fewer than 12 captured bytes: too short for RTP (or cut by the snap length, counted).
    guard payload.count >= 12 else { return }
    let key = StreamKey(datagram, ssrc: payload.uint32BigEndian(at: 8))
    guard let header = RTPHeader.parsed(payload, wireLength: wireLength) else {
      // Malformed RTP on a known stream is a decode error; anything else is just other UDP.
      if let index = findStream(key), streams[index].confirmation != nil {
        decodeErrors.count(.rtpHeader)
      }
      return
    }
    let index: Int
    if let found = findStream(key) {
      index = found
    } else {
      guard table.count < configuration.maxStreams else {
        counters.streamTableFull += 1
        return
      }
      index = addStream(key)
    }
    let arrival = time.nanosecondsSinceEpoch
    // The stream's first packet after the capture's blind span: its silence was the capture's.
    if blindness.spanCount > 0, streams[index].packets > 0,
      blindness.spanEnded(
        interface: streams[index].interface, between: streams[index].lastArrivalNanoseconds,
        and: arrival)
    {
      counters.packetsSkippedWhileBlind += streams[index].resumeAfterBlindness(
        sequence: header.sequenceNumber, arrivalNanoseconds: arrival)
    }
    // One in-place update of the stream per packet; the rare follow-ups come back as flags.
    let wireBytes = datagram.payloadOffset + wireLength
    let truncated = datagram.isTruncated
    let generation = signallingGeneration
    var followUp = streams[index].record(
      header, arrivalNanoseconds: arrival, wireBytes: wireBytes, truncated: truncated,
      clockGeneration: generation)
    if followUp.contains(.resolveClock) {
      resolveClock(index, payloadType: header.payloadType)
      refreshVideoFormat(index)
      followUp = streams[index].record(
        header, arrivalNanoseconds: arrival, wireBytes: wireBytes, truncated: truncated,
        clockGeneration: generation)
    }
    let counted = followUp.contains(.counted)
    let inOrder = followUp.contains(.inOrder)
    followUp.subtract([.counted, .inOrder])
    if !followUp.isEmpty {
      if followUp.contains(.validated) { confirm(index, by: .sequence) }
      // Padding packets (bandwidth probes: libwebrtc sends them on the RTX stream before any
      // media, with timestamps of their own) say nothing of what a stream repairs.
      if followUp.contains(.checkRole) && !header.padded {
        checkRole(index, timestamp: header.timestamp)
      }
      if followUp.contains(.inferClock) {
        inferClock(index, header: header, arrivalNanoseconds: arrival)
      }
    }
    // After the role and the clock: media experience follows what the stream is.
    if counted {
      recordMedia(
        index, header: header, payload: payload, inOrder: inOrder, arrivalNanoseconds: arrival)
    }
  }

  @inline(__always)
  func findStream(_ key: StreamKey) -> Int? {
    streams.withElements { streams in
      table.find(key) { streams[$0].key }
    }
  }

  mutating func addStream(_ key: StreamKey) -> Int {
    let index: Int
    let stream = RTPStream(key: key, interface: currentInterface)
    if let free = freeIndices.popLast() {
      index = free
      freeSet.remove(free)
      streams[index] = stream
    } else {
      index = streams.count
      streams.append(stream)
    }
    do {
      // Scoped so the extra references are gone before `streams` is mutated again (no copy).
      let (current, free) = (streams, freeSet)
      let live = current.indices.lazy.filter { !free.contains($0) && $0 != index }
      table.insert(key, at: index, rehashing: live.map { ($0, current[$0].key) })
    }
    streamsBySSRC.insert(index, tag: StreamKey.ssrcTableTag(key.ssrc))
    let flow = FlowKey(key)
    streamsByFlow.insert(index, tag: flow.tableTag)
    // A stream on the address pair of a validated one is RTP too (either direction).
    streams[index].confirmedByFlow = pairHasConfirmedStream(flow, besides: index)
    if signalledMedia[key.destination] != nil || signalledMedia[key.source] != nil {
      confirm(index, by: .sdp)
    }
    return index
  }

  /// Marks stream `index` as RTP (by probation or SDP), and with it every stream on its
  /// address pair, in either direction (`confirmedByFlow`). A stream added to the pair later
  /// is confirmed when it is added (`addStream`): a confirmation lasts while a stream on the
  /// pair does.
  mutating func confirm(_ index: Int, by confirmation: StreamConfirmation) {
    streams[index].confirmation = confirmation
    let flow = FlowKey(streams[index].key)
    markConfirmedByFlow(flow, besides: index)
    markConfirmedByFlow(flow.reversed, besides: index)
  }

  private mutating func markConfirmedByFlow(_ flow: FlowKey, besides index: Int) {
    // The candidates hold the table's slots, not the streams: changing a stream copies nothing.
    for other in streamsByFlow.candidates(tag: flow.tableTag)
    where other != index && FlowKey(streams[other].key) == flow {
      streams[other].confirmedByFlow = true
    }
  }

  /// Whether a stream other than `index` on `flow` or the reverse flow is confirmed.
  func pairHasConfirmedStream(_ flow: FlowKey, besides index: Int) -> Bool {
    hasConfirmedStream(on: flow, besides: index)
      || hasConfirmedStream(on: flow.reversed, besides: index)
  }

  private func hasConfirmedStream(on flow: FlowKey, besides index: Int) -> Bool {
    streamsByFlow.candidates(tag: flow.tableTag).contains {
      $0 != index && FlowKey(streams[$0].key) == flow && isConfirmed($0)
    }
  }

  /// Looks up the clock of a payload type new to the stream, or again after new SDP.
  mutating func resolveClock(_ index: Int, payloadType: UInt8) {
    streams[index].currentPayloadType = payloadType
    streams[index].clockGeneration = signallingGeneration
    // Read before the calls (an argument read from `self` while the call borrows it copied
    // the whole analyser for the call).
    let key = streams[index].key
    let clock = resolveClock(payloadType, key: key)
    streams[index].currentClock = clock
    if clock.rateHz > 0 && !clock.isEvent && streams[index].reportedClock.source == .unknown {
      // The first known clock is the stream's reported one, and ends any inference still
      // collecting for another payload type.
      streams[index].reportedClock = clock
      endInference(index, .notNeeded)
    }
    if streams[index].currentClock.source == .sdp && streams[index].confirmation == nil {
      confirm(index, by: .sdp)
    }
    if let format = signalledFormat(payloadType, key: key) {
      // SDP names the format: its role is known, no need to guess it from behaviour.
      streams[index].role = StreamRole.signalled(encodingName: format.encodingName)
      streams[index].repair.packetsChecked = RepairCheck.packetsToDecide
    }
  }

  func resolveClock(_ payloadType: UInt8, key: StreamKey) -> PayloadClock {
    if let format = signalledFormat(payloadType, key: key) {
      return PayloadClock(
        rateHz: Double(format.clockRateHz), source: .sdp,
        isEvent: format.encodingName.lowercased() == "telephone-event")
    }
    if let rate = StaticPayloadTypes.clockRateHz(payloadType) {
      return PayloadClock(rateHz: Double(rate), source: .static, isEvent: false)
    }
    return .unknown
  }

  /// SIP with SDP: remembers each media's endpoint and payload formats (clock rates for the
  /// streams it names).
  mutating func learnMedia(_ description: SessionDescription, at time: CaptureTime) {
    guard !description.media.isEmpty else { return }
    counters.sipMessagesWithSDP += 1
    for media in description.media {
      signalledMedia[media.endpoint] = SignalledMedia(media: media, lastUsed: time)
    }
    signallingGeneration += 1
  }
}

/// SDP media and when it was last signalled or used by a live stream.
struct SignalledMedia {
  var media: SessionDescription.Media
  var lastUsed: CaptureTime
}

/// An RTP sender as seen in RTCP: its address and SSRC.
struct SenderKey: Hashable {
  var address: IPAddress
  var ssrc: UInt32
}
