/// What a tick takes from the analyzer: the cumulative counters of every confirmed stream that
/// has a peer, with the facts about the peer's address that scoring needs, and the capture's
/// own counters.
///
/// Taking it is a copy (`StreamAnalyzer.harvest`), the only part of a tick the live agent does
/// under the capture's lock; windows, peers, states and alerts are computed from it afterwards
/// (`Scorer.tick(at:harvest:)`) while packets keep coming in. The buffer is reused from tick
/// to tick, so a steady fleet costs no allocation.
public struct StreamHarvest: Sendable {
  public struct Stream: Sendable {
    /// The stream's index in the analyzer (see `StreamAnalyzer.counters(ofStream:)`).
    public var index: Int
    public var counters: StreamCounters
    public var direction: StreamDirection
    /// The remote address the stream is exchanged with.
    public var peer: IPAddress
    /// The RTCP cadence of the stream's sender (keeps a stream on hold alive).
    public var senderCadence: RTCPCadence?
    /// What is known of the peer's address: its RTCP cadence, ICE round trips, end of call.
    public var peerCadence: RTCPCadence?
    public var peerSTUN: RoundTripStatistics?
    public var peerEnd: SessionEnd?
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
      let counters = counters(ofStream: index)
      guard counters.isConfirmed else { continue }
      harvest.streams.append(
        StreamHarvest.Stream(
          index: index, counters: counters, direction: direction, peer: peer,
          senderCadence: rtcpCadenceByAddress[stream.key.sourceAddress],
          peerCadence: rtcpCadenceByAddress[peer], peerSTUN: stunRoundTripByAddress[peer],
          peerEnd: sessionEndByAddress[peer]))
    }
    if harvest.streams.capacity > 4 * max(harvest.streams.count, 1024) {
      // The buffer outgrew the fleet (a wave of calls ended): give the memory back.
      harvest.streams = [StreamHarvest.Stream](harvest.streams[...])
    }
    startWindows()
    harvest.forgotten = forget(silentSince: cutoff)
    compactIfSparse(remap: &harvest.remap)
    harvest.capture = captureCounters
    harvest.liveStreams = liveStreamCount
    harvest.streamSlots = streams.count
  }
}
