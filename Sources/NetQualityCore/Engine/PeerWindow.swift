/// A peer's streams in one window, gathered before scoring.
struct PeerWindow {
  var rxAudio = (packets: Int64(0), expected: Int64(0), lost: Int64(0))
  var rxVideo = (packets: Int64(0), expected: Int64(0), lost: Int64(0))
  var rxJitterMilliseconds: Double?
  var rxBitsPerSecond = 0.0
  var rxLastArrival: CaptureTime?
  var rxResumedAt: CaptureTime?
  /// The latest RTCP from any of the peer's addresses, and the longest silence its cadence
  /// allows (the largest over those addresses).
  var lastRTCP: CaptureTime?
  var rtcpAllowanceSeconds: Double?
  /// Capture interfaces the peer's streams were seen on.
  var interfaces = InterfaceSet()
  var rxGoodbye: CaptureTime?
  var rxStreamsEnded = 0
  var rxStreams = 0
  var txPackets: Int64 = 0
  var txLastArrival: CaptureTime?
  var txPacketsTotal: Int64 = 0
  var rxPacketsTotal: Int64 = 0
  var rxLostTotal: Int64 = 0
  var txVideo = false
  /// Repair packets (window, cumulative), kept out of the media figures.
  var rxRetransmitted: (window: Int64, total: Int64) = (0, 0)
  var txRetransmitted: (window: Int64, total: Int64) = (0, 0)
  var rxFEC: (window: Int64, total: Int64) = (0, 0)
  /// Receiver reports about our streams to the peer: the latest of each.
  var txFeedback: [StreamHarvest.Feedback.Report] = []
  var roundTrip: (time: CaptureTime, milliseconds: Double)?
  /// The newest ICE check round trip to the peer's addresses (for calls whose RTCP is SRTCP).
  var stunRoundTrip: (time: CaptureTime, milliseconds: Double)?
  /// The latest clear end-of-call signal (DTLS alert, TURN release) on the peer's addresses.
  var sessionEnd: SessionEnd?
  var streams = 0

  /// Adds one of the peer's streams: its window, what the harvest said of it, what RTCP said
  /// about it and what is known of the peer's address.
  mutating func add(
    _ window: StreamWindow, _ stream: StreamFacts, feedback: StreamHarvest.Feedback,
    peer: StreamHarvest.AddressFacts
  ) {
    let (rtcp, end) = (peer.cadence, peer.end)
    streams += 1
    if let stun = peer.stun, stunRoundTrip.map({ stun.time > $0.time }) ?? true {
      stunRoundTrip = (stun.time, stun.seconds * 1000)
    }
    if let end, sessionEnd.map({ end.time > $0.time }) ?? true { sessionEnd = end }
    if let rtcp {
      lastRTCP = max(lastRTCP ?? rtcp.last, rtcp.last)
      rtcpAllowanceSeconds = max(
        rtcpAllowanceSeconds ?? rtcp.allowanceSeconds, rtcp.allowanceSeconds)
    }
    interfaces.insert(stream.interface)
    if window.role != .media {
      addRepair(window, stream: stream)
      return
    }
    switch window.direction {
    case .rx:
      rxStreams += 1
      if stream.isVideo {
        rxVideo.packets += window.packets
        rxVideo.expected += window.expected
        rxVideo.lost += window.lostChange
      } else {
        rxAudio.packets += window.packets
        rxAudio.expected += window.expected
        rxAudio.lost += window.lostChange
      }
      if let jitter = window.jitterMilliseconds, window.packets > 0 {
        rxJitterMilliseconds = max(rxJitterMilliseconds ?? 0, jitter)
      }
      rxBitsPerSecond += window.bitsPerSecond
      rxLastArrival = max(rxLastArrival ?? stream.lastArrival, stream.lastArrival)
      if window.packets > 0 {
        rxResumedAt = min(rxResumedAt ?? stream.resumedAt, stream.resumedAt)
      }
      rxPacketsTotal += window.packetsTotal
      rxLostTotal += window.lostTotal
      if let bye = feedback.goodbyeTime, bye >= stream.lastArrival {
        rxStreamsEnded += 1
        rxGoodbye = max(rxGoodbye ?? bye, bye)
      }
    default:
      // The peer's round trip: its receiver reports about our streams, timed against our own
      // sender reports (RFC 3550 section 6.4.1), cross the network both ways from where we
      // capture. The samples of the peer's streams (our reports about them) measure the loop
      // from the capture point through this host and back, close to 0 on a host capture:
      // they stay the stream's `rtt_ms`, never the peer's.
      if let sample = feedback.roundTrip, roundTrip.map({ sample.time > $0.time }) ?? true {
        roundTrip = (sample.time, sample.seconds * 1000)
      }
      txPackets += window.packets
      txPacketsTotal += window.packetsTotal
      txLastArrival = max(txLastArrival ?? stream.lastArrival, stream.lastArrival)
      txVideo = txVideo || stream.isVideo
      if let report = feedback.lastReport { txFeedback.append(report) }
    }
  }
}

extension PeerWindow {
  /// A repair stream: its packets count as repairs, its arrivals as the peer's activity; its
  /// jitter (the age of what it repairs) and loss stay out of the peer's figures.
  fileprivate mutating func addRepair(_ window: StreamWindow, stream: StreamFacts) {
    switch (window.direction, window.role) {
    case (.rx, .fec):
      rxFEC.window += window.packets
      rxFEC.total += window.packetsTotal
    case (.rx, _):
      rxRetransmitted.window += window.packets
      rxRetransmitted.total += window.packetsTotal
    default:
      txRetransmitted.window += window.packets
      txRetransmitted.total += window.packetsTotal
    }
    if window.direction == .rx {
      rxLastArrival = max(rxLastArrival ?? stream.lastArrival, stream.lastArrival)
    } else {
      txLastArrival = max(txLastArrival ?? stream.lastArrival, stream.lastArrival)
    }
  }
}
