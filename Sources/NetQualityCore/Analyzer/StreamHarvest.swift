/// What a tick takes from the analyzer: the cumulative counters of every confirmed stream that
/// has a peer, with the facts about the peer's address that scoring needs, and the capture's
/// own counters.
///
/// Taking it is a copy (`StreamAnalyzer.harvest`), the only part of a tick the live agent does
/// under the capture's lock; windows, peers, states and alerts are computed from it afterwards
/// (`Scorer.tick(at:harvest:)`) while packets keep coming in. The buffer is reused from tick
/// to tick, so a steady fleet costs no allocation.
public struct StreamHarvest: Sendable {
  /// One stream's cumulative figures: what scoring reads and nothing more (no SDP, no RTCP
  /// details, no inference buffer), so a harvest of 100,000 streams stays near 40 MB.
  public struct Stream: Sendable {
    /// The stream's index in the analyzer (see `StreamAnalyzer.counters(ofStream:)`).
    public var index: Int
    public var key: StreamKey
    public var direction: StreamDirection
    public var role: StreamRole
    /// The capture interface the stream was first seen on.
    public var interface: UInt8
    public var isVideo: Bool
    /// The remote address the stream is exchanged with.
    public var peer: IPAddress
    /// Cumulative counts, as in `StreamCounters`.
    public var packets: Int64
    public var expected: Int64
    public var countedPackets: Int64
    public var silenceLoss: Int64
    public var duplicates: Int64
    public var late: Int64
    public var payloadBytes: Int64
    public var firstArrival: CaptureTime
    public var lastArrival: CaptureTime
    public var resumedAt: CaptureTime
    /// The largest RFC 3550 jitter since the previous harvest; nil without a clock.
    public var windowMaxJitterSeconds: Double?
    /// What RTCP said about the stream (see `Feedback`).
    public var feedback: Feedback
    /// The RTCP cadence of the stream's sender (keeps a stream on hold alive).
    public var senderCadence: RTCPCadence?
    /// What is known of the peer's address: its RTCP cadence, the last ICE round trip, the end
    /// of its call.
    public var peerCadence: RTCPCadence?
    public var peerSTUN: TimedSample?
    public var peerEnd: SessionEnd?
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
    }

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
          jitterMilliseconds: jitter)
      }
    }
  }

  /// A measurement in seconds and when it was taken.
  public struct TimedSample: Sendable {
    public var time: CaptureTime
    public var seconds: Double
  }

  public var streams: [Stream] = []
  public var capture = CaptureCounters()
  /// Streams tracked after the harvest's forgetting (validated or candidates).
  public var liveStreams = 0
  /// Slots of the stream arrays (live streams plus free slots awaiting reuse).
  public var streamSlots = 0
  /// Streams forgotten by this harvest.
  public var forgotten = 0
  /// When the harvest compacted the stream arrays (`compactIfSparse`): each old index's new
  /// one, or -1; empty otherwise. `streams` keep the old indices (those of the counters the
  /// scorer kept at the previous tick); the scorer moves its state to the new ones after.
  public var remap: [Int32] = []

  public init() {}
}

extension StreamAnalyzer {
  /// Fills `harvest` for the tick at `now`, then starts every stream's next window and forgets
  /// the streams silent since `cutoff` (see `forget(silentSince:)`).
  public mutating func harvest(
    into harvest: inout StreamHarvest, forgetSilentSince cutoff: CaptureTime
  ) {
    harvest.streams.removeAll(keepingCapacity: true)
    for index in streams.indices where !freeSet.contains(index) {
      let stream = streams[index]
      let direction = StreamDirection(
        source: stream.key.sourceAddress, destination: stream.key.destinationAddress,
        localNetworks: configuration.localNetworks)
      let peer: IPAddress
      switch direction {
      case .rx: peer = stream.key.sourceAddress
      case .tx: peer = stream.key.destinationAddress
      case .local, .transit: continue
      }
      guard isConfirmed(index) else { continue }
      let clockRateHz = clockRateHz(of: stream)
      let stun = stunRoundTripByAddress[peer]
      harvest.streams.append(
        StreamHarvest.Stream(
          index: index, key: stream.key, direction: direction, role: stream.role,
          interface: stream.interface, isVideo: isVideo(stream), peer: peer,
          packets: stream.packets, expected: stream.sequence.expected,
          countedPackets: stream.sequence.countedPackets, silenceLoss: stream.silenceLoss,
          duplicates: stream.sequence.duplicates, late: stream.sequence.latePackets,
          payloadBytes: stream.payloadBytes,
          firstArrival: CaptureTime(nanosecondsSinceEpoch: stream.firstArrivalNanoseconds),
          lastArrival: CaptureTime(nanosecondsSinceEpoch: stream.lastArrivalNanoseconds),
          resumedAt: CaptureTime(nanosecondsSinceEpoch: stream.resumedAtNanoseconds),
          windowMaxJitterSeconds: clockRateHz != nil ? stream.jitter.windowMaxJitterSeconds : nil,
          feedback: StreamHarvest.Feedback(feedback(ofStream: index), clockRateHz: clockRateHz),
          senderCadence: rtcpCadenceByAddress[stream.key.sourceAddress],
          peerCadence: rtcpCadenceByAddress[peer],
          peerSTUN: zip(stun?.lastTime, stun?.lastSeconds).map {
            StreamHarvest.TimedSample(time: $0.0, seconds: $0.1)
          },
          peerEnd: sessionEndByAddress[peer]))
    }
    if harvest.streams.capacity > 4 * max(harvest.streams.count, 1024) {
      // The buffer outgrew the fleet (a wave of calls ended): give the memory back.
      // A fresh buffer at the size of what is left (`Array(streams[...])` would hand back the
      // same buffer: a slice over a whole array is copied by reference, capacity and all).
      var shrunk: [StreamHarvest.Stream] = []
      shrunk.reserveCapacity(harvest.streams.count)
      shrunk.append(contentsOf: harvest.streams)
      harvest.streams = shrunk
    }
    startWindows()
    harvest.forgotten = forget(silentSince: cutoff)
    compactIfSparse(remap: &harvest.remap)
    harvest.capture = captureCounters
    harvest.liveStreams = liveStreamCount
    harvest.streamSlots = streams.count
  }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
  guard let a, let b else { return nil }
  return (a, b)
}
