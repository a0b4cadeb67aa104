/// The calls at a tick: how many are open, the records of those that ended in the tick, and
/// the counters since the start (`/metrics`, the history, `analyze --calls`).
public struct CallsSnapshot: Sendable, Equatable {
  /// Calls open at the tick, by kind.
  public var active: [CallRecord.Kind: Int] = [:]
  /// The calls that ended in this tick, in the order of their ends.
  public var ended: [CallRecord] = []
  /// The SIP and WebRTC calls open at the tick, with their figures so far: at most
  /// `maxListedOpen`, answered ones (and WebRTC sessions) before INVITEs nothing answered yet,
  /// so that a flood of junk never hides a call in progress. A media call is its peer's
  /// continuous media: its running figures are the peer's (`/api/v1/peers`), and a TURN host's
  /// thousands of them would cost every tick a record each.
  public var open: [CallRecord] = []
  /// Signalled calls open beyond `maxListedOpen`, not listed.
  public var openUnlisted = 0
  public static let maxListedOpen = 2_000
  /// SIP calls that ended in this tick with no response at all beyond their source's record
  /// budget (`CallSettings.silentRecordsPerSourcePerMinute`): how many from each source, the
  /// most first. Counted in `counters`, never recorded one by one.
  public var unrecorded: [UnrecordedCalls] = []
  public var counters = CallCounters()
  /// What the capture side saw of signalling (SIP messages, malformed ones, TLS).
  public var signalling = SignallingCounters()
  /// The failure ratios of the SIP calls ended in the last `failureWindowSeconds` (nil below
  /// `failureMinimumCalls` calls).
  public var failureRatio: Double?
  public var serverFailureRatio: Double?

  public init() {}

  public var activeTotal: Int { active.values.reduce(0, +) }
}

/// Calls since the engine started.
public struct CallCounters: Sendable, Equatable {
  public var started: [CallRecord.Kind: Int64] = [:]
  /// Ended, by kind and end reason.
  public var ended: [CallRecord.Kind: [CallRecord.EndReason: Int64]] = [:]
  /// SIP calls never answered, by the final status's class (`none`: no final response).
  public var failedByStatusClass: [String: Int64] = [:]
  /// Calls not tracked because `calls.max_tracked` were open (a SIP INVITE, an ICE session or a
  /// peer's media), and streams left without a call for it.
  public var notTracked: Int64 = 0
  /// INVITEs not tracked because their source had `calls.max_silent_per_source` calls that
  /// nothing had answered yet (each retransmission counts again).
  public var notTrackedSilentSource: Int64 = 0
  /// SIP calls ended with no response at all that were counted, not recorded (their source
  /// over `calls.silent_records_per_source_per_minute`).
  public var unrecordedSilent: Int64 = 0
  public var streamsWithoutCall: Int64 = 0
  /// Ended calls' mean MOS per direction, as a cumulative histogram over `mosBounds`.
  public var mosBuckets: [PeerLevelCounters.Direction: [Int64]] = [:]
  public var mosSum: [PeerLevelCounters.Direction: Double] = [:]
  public var mosCount: [PeerLevelCounters.Direction: Int64] = [:]
  /// Ended calls' packets lost on each hop through this host (`CallRecord.Hop`): before it,
  /// inside it, after it (the far end's reports less the gaps already present at egress).
  public var hopLost = HopLoss()

  /// The G.107 Annex B MOS of R = 50, 60, 70, 80, 90 and 1, 2 below them (as the fleet's).
  public static let mosBounds = [1.0, 2.0, 2.58, 3.1, 3.6, 4.03, 4.34]

  public init() {}

  mutating func record(ended call: CallRecord) {
    ended[call.kind, default: [:]][call.endReason, default: 0] += 1
    for hop in call.hops { hopLost.add(hop) }
    if call.isFailed { failedByStatusClass[call.statusClass, default: 0] += 1 }
    for (direction, figures) in [(PeerLevelCounters.Direction.rx, call.rx), (.tx, call.tx)] {
      guard let mos = figures.meanMeanOpinionScore else { continue }
      var buckets = mosBuckets[direction] ?? [Int64](repeating: 0, count: Self.mosBounds.count)
      for (index, bound) in Self.mosBounds.enumerated() where mos <= bound { buckets[index] += 1 }
      mosBuckets[direction] = buckets
      mosSum[direction, default: 0] += mos
      mosCount[direction, default: 0] += 1
    }
  }
}

/// What the capture side counted of call signalling.
public struct SignallingCounters: Sendable, Equatable {
  public var sipRequests: Int64 = 0
  public var sipResponses: Int64 = 0
  /// SIP messages not used, by reason (`SIPMalformedReason`).
  public var sipMalformed: [String: Int64] = [:]
  /// SIP over TCP: segments read, and messages that spanned segments.
  public var sipTCPSegments: Int64 = 0
  public var sipTCPReassembled: Int64 = 0
  /// TCP segments to or from port 5061 (SIP over TLS, RFC 3261 section 26.2): encrypted, so
  /// their calls cannot be seen; counted so that `analyze` and `/metrics` say so.
  public var sipTLSSegments: Int64 = 0
  /// ICE connectivity checks with a USERNAME (RFC 8445 section 7.2.2), for WebRTC sessions.
  public var iceChecks: Int64 = 0
  /// Signalling the capture side could not hand to the tick: more than the journal holds
  /// between two ticks (`SignallingJournal.capacity`).
  public var journalDropped: Int64 = 0

  public init() {}

  public var sipMessages: Int64 { sipRequests + sipResponses }
  public var sipMalformedTotal: Int64 { sipMalformed.values.reduce(0, +) }
}

/// SIP calls from one source that ended in a tick with nothing ever answering them, beyond the
/// source's record budget: summed instead of recorded one by one.
public struct UnrecordedCalls: Sendable, Equatable {
  public var source: IPAddress
  public var calls: Int

  public init(source: IPAddress, calls: Int) {
    self.source = source
    self.calls = calls
  }

  /// Counts by source as a list, the most first (then by address).
  public static func list(_ bySource: [IPAddress: Int]) -> [UnrecordedCalls] {
    bySource.map { UnrecordedCalls(source: $0.key, calls: $0.value) }
      .sorted { ($1.calls, $0.source) < ($0.calls, $1.source) }
  }
}
