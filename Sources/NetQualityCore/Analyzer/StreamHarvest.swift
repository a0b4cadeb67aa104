/// What a tick takes from the analyzer: the cumulative counters of every confirmed stream that
/// has a peer, with the facts about the peer's address that scoring needs, and the capture's
/// own counters.
///
/// Taking it is a copy (`StreamAnalyzer.harvest`), the only part of a tick the live agent does
/// under the capture's lock; windows, peers, states and alerts are computed from it afterwards
/// (`Scorer.tick(at:harvest:)`) while packets keep coming in. A replay (`Engine`) reuses one
/// harvest from tick to tick; the live agent takes a new one each tick and lets it go once the
/// tick is scored, so no copy of every stream stays in memory between ticks.
public struct StreamHarvest: Sendable {
  /// One stream's cumulative figures: what scoring reads and nothing more, 160 bytes. What
  /// only some streams have lives beside the records: RTCP details in `feedbacks`, the facts
  /// about an address (its RTCP cadence, ICE round trip, end of call) in `addresses` for the
  /// addresses that have some, so 100,000 streams without RTCP take 16 MB (385 bytes a stream
  /// when every record carried all of it).
  public struct Stream: Sendable {
    public var direction: StreamDirection
    public var role: StreamRole
    /// The capture interface the stream was first seen on.
    public var interface: UInt8
    public var isVideo: Bool
    /// The stream's index in the analyzer (its per-stream state in the scorer follows it).
    public var index: Int32
    /// The stream's RTCP details in `feedbacks`, or -1: no RTCP about it yet.
    var feedbackIndex: Int32
    /// What is known of the address that sends the stream and of its peer's address, in
    /// `addresses`, or -1: nothing.
    var senderFactsIndex: Int32
    var peerFactsIndex: Int32
    public var key: StreamKey
    public var counts: StreamCounts
    public var firstArrival: CaptureTime
    public var lastArrival: CaptureTime
    public var resumedAt: CaptureTime
    /// The largest RFC 3550 jitter since the previous harvest; nil without a clock.
    public var windowMaxJitterSeconds: Double?

    /// The remote address the stream is exchanged with (a harvest holds rx and tx streams
    /// only).
    public var peer: IPAddress { direction == .rx ? key.sourceAddress : key.destinationAddress }
  }

  /// What is known of one address: its RTCP cadence, the last ICE round trip to it, the end of
  /// its call.
  public struct AddressFacts: Sendable {
    public var cadence: RTCPCadence?
    public var stun: TimedSample?
    public var end: SessionEnd?

    public static let none = AddressFacts()

    var isEmpty: Bool { cadence == nil && stun == nil && end == nil }
  }

  /// The part of a stream's `ReceptionFeedback` that scoring reads.
  public struct Feedback: Sendable {
    /// The stream's sender's last RTCP packet (RFC 3550 section 6.4.1).
    public var lastSenderRTCPTime: CaptureTime?
    /// RTCP BYE (RFC 3550 section 6.6).
    public var goodbyeTime: CaptureTime?
    /// The last round trip from LSR/DLSR (RFC 3550 section 6.4.1).
    public var roundTrip: TimedSample?
    /// The latest receiver report block about the stream.
    public var lastReport: Report?

    public struct Report: Sendable {
      public var time: CaptureTime
      /// The report before it (the start of the interval its fraction lost covers).
      public var since: CaptureTime?
      public var fractionLost: Double
      public var jitterMilliseconds: Double?
      /// What it covers beyond the report before it; nil for the stream's first report.
      public var coverage: ReportCoverage?
      /// The receiver's cumulative number of packets lost (RFC 3550 section 6.4.1), and the
      /// stream's own loss as the capture counted it when the report arrived.
      public var cumulativeLost: Int64 = 0
      public var streamLostAtReport: Int64 = 0
    }

    /// A stream no RTCP spoke of.
    public static let none = Feedback()

    init() {}

    init(_ feedback: ReceptionFeedback, clockRateHz: Int?) {
      lastSenderRTCPTime = feedback.lastSenderRTCPTime
      goodbyeTime = feedback.goodbyeTime
      if let seconds = feedback.roundTrip.lastSeconds, let time = feedback.roundTrip.lastTime {
        roundTrip = TimedSample(time: time, seconds: seconds)
      }
      if let time = feedback.lastReportTime, let fraction = feedback.lastFractionLost {
        var jitter: Double?
        if let units = feedback.lastJitterTimestampUnits, let rate = clockRateHz, rate > 0 {
          jitter = Double(units) / Double(rate) * 1000
        }
        lastReport = Report(
          time: time, since: feedback.previousReportTime, fractionLost: fraction,
          jitterMilliseconds: jitter, coverage: feedback.lastCoverage,
          cumulativeLost: Int64(feedback.lastCumulativeLost ?? 0),
          streamLostAtReport: feedback.streamLostAtLastReport)
      }
    }
  }

  /// A measurement in seconds and when it was taken.
  public struct TimedSample: Sendable {
    public var time: CaptureTime
    public var seconds: Double
  }

  /// In chunks, drained by the scorer as it turns them into windows (`Scorer.tick`): the
  /// harvest goes while the windows come, so both are never whole at once.
  var streams = ChunkedArray<Stream>()
  /// RTCP details of the streams that have some (`Stream.feedbackIndex`).
  public var feedbacks: [Feedback] = []
  /// Facts of the addresses that have some (`Stream.senderFactsIndex`, `peerFactsIndex`): an
  /// address's once for each run of streams that ask for it (`StreamAnalyzer.harvest`).
  public var addresses: [AddressFacts] = []
  public var capture = CaptureCounters()
  /// The capture's blind spans found since the previous harvest, and those still open
  /// (`CaptureBlindSpan`).
  public var blindSpans: [CaptureBlindSpan] = []
  /// The media experience of the streams that have one, and the RTCP feedback between each
  /// pair of addresses (`StreamAnalyzer+Media.swift`).
  public var media: [MediaHarvest] = []
  public var feedbackByPair: [AddressPair: FeedbackCounts] = [:]
  /// Streams tracked after the harvest's forgetting (validated or candidates).
  public var liveStreams = 0
  /// Slots of the stream arrays (live streams plus free slots awaiting reuse).
  public var streamSlots = 0
  /// Streams forgotten by this harvest.
  public var forgotten = 0
  /// The call signalling since the previous harvest, and the capture side's counts of it.
  public var signalling = SignallingJournal()
  public var signallingCounters = SignallingCounters()
  /// When the harvest compacted the stream arrays (`compactIfSparse`): each old index's new
  /// one, or -1; empty otherwise. `streams` keep the old indices (those of the counters the
  /// scorer kept at the previous tick); the scorer moves its state to the new ones after.
  public var remap: [Int32] = []

  public init() {}

  /// The streams the harvest holds (none once the scorer drained them).
  public var streamCount: Int { streams.count }

  /// What RTCP said about the stream whose `feedbackIndex` this is.
  func feedback(at index: Int32) -> Feedback {
    index >= 0 ? feedbacks[Int(index)] : .none
  }

  /// What RTCP said about `stream`.
  public func feedback(of stream: Stream) -> Feedback { feedback(at: stream.feedbackIndex) }

  /// What is known of the address whose facts index (`senderFactsIndex`, `peerFactsIndex`)
  /// this is.
  func facts(at index: Int32) -> AddressFacts {
    index >= 0 ? addresses[Int(index)] : .none
  }
}

extension StreamAnalyzer {
  /// Fills `harvest` for the tick at `now`, starting every stream's next window (its jitter
  /// maximum restarts), then forgets the streams silent since `cutoff` (as
  /// `forget(silentSince:)` does).
  public mutating func harvest(
    into harvest: inout StreamHarvest, forgetSilentSince cutoff: CaptureTime
  ) {
    harvest.streams.removeAll()
    harvest.feedbacks.removeAll(keepingCapacity: true)
    harvest.addresses.removeAll(keepingCapacity: true)
    harvest.media.removeAll(keepingCapacity: true)
    // Room for as many as the last harvest had: the agent makes a new harvest each tick, and
    // its lists grown from empty by doubling copied and faulted in about twice their size,
    // on the capture thread (a sixth of the harvest at 200,000 streams, perf, issue 37).
    harvest.feedbacks.reserveCapacity(lastHarvestSizes.feedbacks)
    harvest.addresses.reserveCapacity(lastHarvestSizes.addresses)
    harvest.media.reserveCapacity(lastHarvestSizes.media)
    defer {
      lastHarvestSizes = HarvestSizes(
        feedbacks: harvest.feedbacks.count, addresses: harvest.addresses.count,
        media: harvest.media.count)
    }
    // An address's facts are read where a stream asks for them, and kept for the next ask of
    // the same address (a tx stream asks for ours and then its peer's, an rx stream for its
    // peer's): an index of the addresses already asked, to keep each one's facts once, cost
    // two more hashes and probes per stream (perf, issue 37). The price: a peer's facts once
    // per stream (at most two entries a stream, 40 bytes each, for this harvest only).
    let anyFacts = !addresses.isEmpty
    var recent: (IPAddress, Int32, IPAddress, Int32)?
    // A stream's peer's facts: from the slot the stream remembers, else looked up by address
    // and the slot remembered (see `AnalyzedAddress`).
    func facts(of address: IPAddress, stream index: Int) -> Int32 {
      guard anyFacts else { return -1 }
      if let (first, firstIndex, second, secondIndex) = recent {
        if address == first { return firstIndex }
        if address == second {
          recent = (second, secondIndex, first, firstIndex)
          return secondIndex
        }
      }
      while remoteFactsSlots.count <= index { remoteFactsSlots.append(-1) }
      var slot = remoteFactsSlots[index]
      if !addresses.holds(address, at: slot) {
        slot = addresses.slot(of: address) ?? -1
        remoteFactsSlots[index] = slot
      }
      let factsIndex = slot >= 0 ? harvested(addresses.facts(at: slot)) : -1
      recent =
        recent.map { (address, factsIndex, $0.0, $0.1) }
        ?? (address, factsIndex, address, factsIndex)
      return factsIndex
    }
    // A tx stream's sender is one of this host's few addresses, asked for between two asks of
    // its peer's: kept apart from the last two peers', or each peer's tx stream looked it up
    // again (a hash and an entry in `addresses` per peer).
    var local: (IPAddress, Int32)?
    func facts(ofLocal address: IPAddress) -> Int32 {
      guard anyFacts else { return -1 }
      if let (kept, index) = local, kept == address { return index }
      let index = addresses.slot(of: address).map { harvested(addresses.facts(at: $0)) } ?? -1
      local = (address, index)
      return index
    }
    // What scoring reads of an address's facts, in the harvest's `addresses`; -1: none.
    func harvested(_ facts: AnalyzedAddress) -> Int32 {
      let stun = facts.stun
      let summary = StreamHarvest.AddressFacts(
        cadence: facts.cadence,
        stun: zip(stun?.lastTime, stun?.lastSeconds).map {
          StreamHarvest.TimedSample(time: $0.0, seconds: $0.1)
        },
        end: facts.end)
      guard !summary.isEmpty else { return -1 }
      let index = Int32(harvest.addresses.count)
      harvest.addresses.append(summary)
      return index
    }
    var silent: [Int] = []
    for index in streams.indices where !freeSet.contains(index) {
      // The stream's next window starts, and its silence is checked for forgetting, in the
      // same pass as its harvest, while its record is at hand: two more passes over every
      // stream's record (384 bytes each, a cache miss each) were a fifth of the harvest under
      // churn (perf, issue 37). Whatever the harvest skips below.
      defer {
        streams[index].jitter.startWindow()
        if isSilent(index, since: cutoff) { silent.append(index) }
      }
      // Field by field, never the whole record (384 bytes) copied out: a copy of every
      // stream's record per harvest was a fifth of the harvest under churn (perf, issue 37).
      let key = streams[index].key
      let direction = StreamDirection(
        source: key.sourceAddress, destination: key.destinationAddress,
        localNetworks: configuration.localNetworks)
      let peer: IPAddress
      switch direction {
      case .rx: peer = key.sourceAddress
      case .tx: peer = key.destinationAddress
      case .local, .transit: continue
      }
      guard isConfirmed(index) else { continue }
      let clock = streams[index].reportedClock
      let clockRateHz = clock.source != .unknown ? Int(clock.rateHz) : nil
      var feedbackIndex: Int32 = -1
      let feedbackSlot = streams[index].feedbackSlot
      if feedbackSlot >= 0 {
        feedbackIndex = Int32(harvest.feedbacks.count)
        harvest.feedbacks.append(
          StreamHarvest.Feedback(feedbacks[feedbackSlot], clockRateHz: clockRateHz))
      }
      // An rx stream's sender is its peer: one lookup for both.
      let senderFacts =
        direction == .rx
        ? facts(of: key.sourceAddress, stream: index) : facts(ofLocal: key.sourceAddress)
      let peerFacts = direction == .rx ? senderFacts : facts(of: peer, stream: index)
      let firstArrival = CaptureTime(nanosecondsSinceEpoch: streams[index].firstArrivalNanoseconds)
      harvest.streams.append(
        StreamHarvest.Stream(
          direction: direction, role: streams[index].role, interface: streams[index].interface,
          isVideo: isVideo(key, clock: clock), index: Int32(index),
          feedbackIndex: feedbackIndex, senderFactsIndex: senderFacts, peerFactsIndex: peerFacts,
          key: key, counts: streams[index].counts, firstArrival: firstArrival,
          lastArrival: CaptureTime(nanosecondsSinceEpoch: streams[index].lastArrivalNanoseconds),
          resumedAt: CaptureTime(nanosecondsSinceEpoch: streams[index].resumedAtNanoseconds),
          windowMaxJitterSeconds: clockRateHz != nil
            ? streams[index].jitter.windowMaxJitterSeconds : nil))
      if let counts = mediaCounts(ofStream: index) {
        harvest.media.append(
          MediaHarvest(
            index: Int32(index), firstArrival: firstArrival, key: key, direction: direction,
            isVideo: streams[index].mediaSlot.isVideo, counts: counts))
      }
    }
    harvest.feedbackByPair = feedbackByPair
    // A buffer that outgrew the fleet (a wave of calls ended) gives its memory back (the
    // streams' chunks come and go with them).
    harvest.feedbacks.shrinkIfOutgrown()
    harvest.addresses.shrinkIfOutgrown()
    harvest.media.shrinkIfOutgrown()
    harvest.forgotten = forget(silent, cutoff: cutoff)
    compactIfSparse(remap: &harvest.remap)
    harvest.capture = captureCounters
    harvest.blindSpans = blindness.take()
    harvest.signalling = takeSignalling()
    harvest.signallingCounters = calls.counters
    calls.tcp.forget(before: cutoff)
    harvest.liveStreams = liveStreamCount
    harvest.streamSlots = streams.count
  }
}

extension Array {
  /// Reallocated at its count when its capacity passed four times that (and 1,024): a fresh
  /// buffer, as `Array(self[...])` would hand back the same one (a slice over a whole array is
  /// copied by reference, capacity and all).
  fileprivate mutating func shrinkIfOutgrown() {
    guard capacity > 4 * Swift.max(count, 1024) else { return }
    var shrunk: [Element] = []
    shrunk.reserveCapacity(count)
    shrunk.append(contentsOf: self)
    self = shrunk
  }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
  guard let a, let b else { return nil }
  return (a, b)
}

/// How many entries a harvest's lists held (`StreamAnalyzer.lastHarvestSizes`).
struct HarvestSizes: Sendable {
  var feedbacks = 0
  var addresses = 0
  var media = 0
}
