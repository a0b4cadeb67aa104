/// What the tracker holds of one open call between ticks.
struct CallState {
  var kind: CallRecord.Kind
  /// Bumped when the slot is let go: a stream bound to an ended call sees its generation gone.
  var generation: UInt32 = 0
  var isLive = false
  var start: CaptureTime
  var startSeen = true
  /// The latest signalling of the call (SIP message, ICE check).
  var lastSignal: CaptureTime
  /// Decided: the call ends at `time` for `reason`; written once the grace after it passed.
  var pendingEnd: (time: CaptureTime, reason: CallRecord.EndReason)?

  // SIP (RFC 3261): the dialog, the INVITE transaction, the offer and answer.
  var callID: String?
  var callerTag: String?
  var calleeTag: String?
  var fromUser: String?
  var toUser: String?
  /// Where the INVITE came from: the caller's side of the signalling.
  var callerSignalling: Endpoint?
  var calleeSignalling: Endpoint?
  var inviteCSeq: UInt32 = 0
  var ringing: CaptureTime?
  var sawProvisional = false
  /// An INVITE that nothing has answered yet, not even with a 100 Trying (counted in
  /// `CallTracker.silentBySource` while true).
  var awaitingResponse = false
  var answer: CaptureTime?
  var finalStatus: Int?
  var finalStatusTime: CaptureTime?
  var cancelRequested = false
  /// A 401 or 407 to the INVITE: the caller is expected to send it again with credentials
  /// (RFC 3261 section 22.2), which goes on with the same call.
  var challengedAt: CaptureTime?
  /// Requests and responses seen on each hop (`CallTracker.hopIdentity`), to tell
  /// retransmissions (RFC 3261 section 17); 64 of each at most.
  var requestsSeen: Set<UInt64> = []
  var responsesSeen: Set<UInt64> = []
  var sipRetransmissions = 0
  var forkedAnswers = 0
  /// The media endpoints the call's SDP named (registered in the tracker's index).
  var endpoints: [Endpoint] = []
  var held = false
  var heldSince: CaptureTime?
  var holds = 0
  var heldSeconds = 0.0
  var codecs: [String] = []
  /// Its SDP negotiated RFC 3389 comfort noise for audio: audio silences are no outages.
  var comfortNoise = false

  // WebRTC: the ICE session and the flows its checks went over.
  var iceSession: UInt64?
  var lastCheck: CaptureTime?
  var flows: [FlowPair] = []
  /// The latest DTLS alert or TURN release on one of `flows`.
  var flowEnd: SessionEnd?

  // Media: the peer whose continuous media the call is.
  var mediaPeer: String?

  // Quality (see `CallTracker+Quality`).
  var quality = CallQuality()
  var window = PeerWindow()
  var hasWindow = false
  var firstTick: CaptureTime?
  var lastTick: CaptureTime?
  var peers: [String] = []
  /// The peer of the signalling, for a call without streams.
  var signallingPeer: String?
  var streams: [CallRecord.Stream] = []
  /// What the call follows of each of `streams`, at the same positions.
  var tracks: [CallStreamTrack] = []
  /// The silences of its streams that were outages (`noteSilence`), overlapping ones apart.
  var outageSpans: [OutageSpan] = []
  /// The latest hold that ended: its media's silence is no outage.
  var lastHold: OutageSpan?
  var streamCount = 0

  init(kind: CallRecord.Kind, start: CaptureTime) {
    self.kind = kind
    self.start = start
    lastSignal = start
  }

  /// An empty slot.
  static let vacant = CallState(kind: .media, start: .zero)

  /// The call's media endpoint is one of these.
  func names(_ endpoint: Endpoint) -> Bool { endpoints.contains(endpoint) }

  /// Adds a peer name to the record's list (bounded).
  mutating func addPeer(_ name: String) {
    guard !peers.contains(name), peers.count < CallRecord.maxPeers else { return }
    peers.append(name)
  }

  /// A stream's window into the record: its peer, its packets, its loss since the call had it
  /// (the call's rx loss is the sum of its rx media streams'), and its silences (see
  /// `CallStreamTrack`). Repair streams (RTX, FEC) come in bursts and lose what they please:
  /// neither their gaps nor their loss are the call's.
  mutating func account(
    _ window: StreamWindow, _ fact: StreamFacts, feedback: StreamHarvest.Feedback, peer: String,
    interruptedAfterSeconds: Double
  ) {
    addPeer(peer)
    guard let index = streams.firstIndex(where: { $0.key == window.key }) else {
      // Beyond the streams listed: the window's loss, as before (a call of 16 streams or more).
      if window.direction == .rx && window.role == .media { quality.rx.lost += window.lostChange }
      return
    }
    streams[index].packets += window.packets
    guard window.role == .media else { return }
    var track = tracks[index]
    let before = track.lostBefore ?? (window.lostTotal - window.lostChange)
    track.lostBefore = before
    let lost = window.lostTotal - before
    if window.direction == .rx { quality.rx.lost += lost - (streams[index].lost ?? 0) }
    streams[index].lost = lost
    if window.direction == .tx, let report = feedback.lastReport {
      // The far end counts as lost the gaps that were already in what went out.
      streams[index].farEndLost = report.cumulativeLost
      streams[index].downstreamLost = max(0, report.cumulativeLost - report.streamLostAtReport)
    }
    if let jitter = window.jitterMilliseconds, window.packets > 0 {
      streams[index].maxJitterMilliseconds = max(
        streams[index].maxJitterMilliseconds ?? jitter, jitter)
    }
    if let roundTrip = window.roundTripMilliseconds {
      streams[index].roundTripMilliseconds = roundTrip
    }
    if window.packets > 0 {
      // A silence spanning a whole tick ended: from the last packet before it to the first
      // after (the stream's resume, a gap of a second or more). An outage is at least 4 s by
      // default, longer than a tick, so every outage spans one.
      if track.silentTick, let last = track.lastArrival, fact.resumedAt > last {
        if fact.isVideo || !comfortNoise {
          noteSilence(
            stream: index, from: last, to: fact.resumedAt,
            interruptedAfterSeconds: interruptedAfterSeconds)
        }
      }
      track.silentTick = false
    } else if track.lastArrival != nil {
      track.silentTick = true
    }
    track.lastArrival = max(track.lastArrival ?? fact.lastArrival, fact.lastArrival)
    track.silenceAllowed = comfortNoise && !fact.isVideo
    tracks[index] = track
  }

  /// A silence of one stream from `start` to `end`: an outage of the stream and of the call
  /// when it lasted the `interrupted` timer or longer and the call was not on hold then.
  mutating func noteSilence(
    stream index: Int, from start: CaptureTime, to end: CaptureTime,
    interruptedAfterSeconds: Double
  ) {
    let seconds = end.seconds(since: start)
    guard seconds >= interruptedAfterSeconds, !wasHeld(from: start, to: end) else { return }
    streams[index].outages += 1
    streams[index].outageSeconds += seconds
    let span = OutageSpan(start: start, end: end)
    if outageSpans.count < OutageSpan.maxKept {
      outageSpans.append(span)
    } else if let last = outageSpans.indices.last {
      outageSpans[last].end = max(outageSpans[last].end, end)
    }
  }

  /// The call was on hold for some of the time from `start` to `end`.
  func wasHeld(from start: CaptureTime, to end: CaptureTime) -> Bool {
    if let since = heldSince, since <= end { return true }
    if let hold = lastHold, hold.start <= end, hold.end >= start { return true }
    return false
  }
}

/// A flow between two endpoints, either way.
struct FlowPair: Hashable, Sendable {
  var low: Endpoint
  var high: Endpoint

  init(_ a: Endpoint, _ b: Endpoint) {
    if (a.address, a.port) < (b.address, b.port) {
      (low, high) = (a, b)
    } else {
      (low, high) = (b, a)
    }
  }
}

/// A stream's call, kept per stream index (like the scorer's baselines): the stream is known by
/// its first arrival, so a new stream in a reused slot is bound anew.
struct StreamBinding {
  var firstArrival: Int64 = .min
  /// The call's slot; -1 none (the table was full).
  var slot: Int32 = -1
  var generation: UInt32 = 0
  var kind: CallRecord.Kind = .media
}
