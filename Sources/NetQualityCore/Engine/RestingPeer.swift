/// A silent peer whose scoring has reached a fixed point: disconnected or timed out, nothing
/// measured, no probe, its pooled windows empty, and its alert rules and snapshot unchanged by
/// a tick over the same inputs. Scoring it again would give the same snapshot and no event, so
/// the tick hands back this one instead (`Scorer.updatePeer`): its state is still advanced
/// (the timeout comes at its time) and its time at each level still counted, but its scoring,
/// alert rules and snapshot are skipped.
///
/// A TURN or SFU host holds each departed peer for its timers and the forgetting grace after
/// them (60 s and 60 s): under a churn of 1,000 new peers a second, 80 % of the 100,000 peers
/// a tick carries are silent like this (issue 37).
struct RestingPeer: Sendable, Equatable {
  /// What the window of a silent peer says that scoring reads: while it stays the same, and
  /// the window carries no packet, scoring has nothing new to read.
  struct Inputs: Sendable, Equatable {
    var rxLastArrival: CaptureTime?
    var rxResumedAt: CaptureTime?
    var lastRTCP: CaptureTime?
    var rtcpAllowanceSeconds: Double?
    var txLastArrival: CaptureTime?
    var rxGoodbye: CaptureTime?
    var rxStreams: Int
    var rxStreamsEnded: Int
    var streams: Int
    var interfaces: InterfaceSet
    var totals: Totals
    var roundTripTime: CaptureTime?
    var stunRoundTripTime: CaptureTime?
    var sessionEnd: SessionEnd?

    init(_ window: PeerWindow) {
      rxLastArrival = window.rxLastArrival
      rxResumedAt = window.rxResumedAt
      lastRTCP = window.lastRTCP
      rtcpAllowanceSeconds = window.rtcpAllowanceSeconds
      txLastArrival = window.txLastArrival
      rxGoodbye = window.rxGoodbye
      rxStreams = window.rxStreams
      rxStreamsEnded = window.rxStreamsEnded
      streams = window.streams
      interfaces = window.interfaces
      totals = Totals(
        rxPackets: window.rxPacketsTotal, rxLost: window.rxLostTotal,
        txPackets: window.txPacketsTotal, rxRetransmitted: window.rxRetransmitted.total,
        txRetransmitted: window.txRetransmitted.total, rxFEC: window.rxFEC.total)
      roundTripTime = window.roundTrip?.time
      stunRoundTripTime = window.stunRoundTrip?.time
      sessionEnd = window.sessionEnd
    }
  }

  /// The window's cumulative counts.
  struct Totals: Sendable, Equatable {
    var rxPackets: Int64
    var rxLost: Int64
    var txPackets: Int64
    var rxRetransmitted: Int64
    var txRetransmitted: Int64
    var rxFEC: Int64
  }

  var inputs: Inputs
  var snapshot: PeerSnapshot
  /// The scorer's settings when it came to rest (`Scorer.settingsGeneration`): a reload's
  /// rules or quality model may score it otherwise.
  var settingsGeneration: Int
  /// Seen twice: the second tick over the same inputs gave the same snapshot, rules and
  /// scoring state as the first, so every later one would.
  var confirmed: Bool
}

extension PeerWindow {
  /// Nothing measured in the window: no packet either way, no loss counted, no repair.
  var isSilent: Bool {
    rxAudio == (0, 0, 0) && rxVideo == (0, 0, 0) && txPackets == 0 && rxBitsPerSecond == 0
      && rxRetransmitted.window == 0 && txRetransmitted.window == 0 && rxFEC.window == 0
  }
}

extension PeerRecord {
  /// Whether the record's scoring state stands still on a silent window: no pooled window
  /// (pushing an empty one into an empty pool keeps it empty).
  var poolsEmpty: Bool {
    rxAudio.windowCount == 0 && rxVideo.windowCount == 0 && probeRx.windowCount == 0
      && probeTx.windowCount == 0
  }
}
