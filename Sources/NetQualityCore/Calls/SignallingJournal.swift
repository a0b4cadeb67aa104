/// The call signalling the capture side saw between two ticks, in capture order: SIP messages
/// and ICE checks. The analyzer appends to it (one parse of each packet); the tick takes it with
/// the harvest and the scorer's `CallTracker` replays it beside the streams born in the same
/// span, so a stream is bound by what was signalled before its first packet.
public struct SignallingJournal: Sendable {
  public enum Entry: Sendable {
    case sip(SIPEvent)
    case ice(ICECheck)
    case flowEnd(FlowEnd)

    var time: CaptureTime {
      switch self {
      case .sip(let event): event.time
      case .ice(let check): check.time
      case .flowEnd(let end): end.end.time
      }
    }
  }

  /// A DTLS alert or a TURN allocation released (`SessionEnd`) on the flow from `source` to
  /// `destination` (the outer addresses of TURN): it ends the WebRTC session whose checks went
  /// over that flow, and no other (a client releases the allocations it gathered and does not
  /// use while its call sets up).
  public struct FlowEnd: Sendable {
    public var source: Endpoint
    public var destination: Endpoint
    public var end: SessionEnd
  }

  /// A SIP message with where it went.
  public struct SIPEvent: Sendable {
    public var time: CaptureTime
    public var source: Endpoint
    public var destination: Endpoint
    public var message: SIPMessage
  }

  /// An ICE connectivity or consent check (a STUN Binding request with a USERNAME, RFC 8445
  /// section 7.2.2) on the flow from `source` to `destination` (the outer addresses of TURN).
  public struct ICECheck: Sendable {
    public var time: CaptureTime
    public var source: Endpoint
    public var destination: Endpoint
    /// The two ufrags of USERNAME (`remote:local`), hashed so that either order gives the same
    /// value: both ends' checks name one session.
    public var sessionHash: UInt64
  }

  /// Entries kept between two ticks: 100 new calls a second make about 1,500 in a 2 s tick
  /// (SIP's seven messages a call, retransmissions, checks); beyond the capacity entries are
  /// counted and dropped, so a signalling flood costs bounded memory.
  public static let capacity = 100_000

  public internal(set) var entries: [Entry] = []

  public init() {}
}

/// The capture side's part of call detection: the journal, its counters and the reassembly of
/// SIP over TCP. Lives in the analyzer; the tick takes the journal (`takeJournal`).
struct CallSignalling: Sendable {
  var journal = SignallingJournal()
  var counters = SignallingCounters()
  var tcp = SIPStreamReassembly()

  mutating func append(_ entry: SignallingJournal.Entry) {
    guard journal.entries.count < SignallingJournal.capacity else {
      counters.journalDropped += 1
      return
    }
    journal.entries.append(entry)
  }

  /// A SIP message for the journal; malformed dialogs are counted here, not journalled.
  mutating func record(
    _ message: SIPMessage, source: Endpoint, destination: Endpoint, at time: CaptureTime
  ) {
    if message.isRequest { counters.sipRequests += 1 } else { counters.sipResponses += 1 }
    if let defect = message.dialogDefect {
      counters.sipMalformed[defect.rawValue, default: 0] += 1
      return
    }
    // Out-of-dialog chatter (REGISTER, OPTIONS, SUBSCRIBE, NOTIFY, MESSAGE, PUBLISH) never
    // makes or changes a call: left out of the journal.
    switch message.method {
    case .register, .options, .subscribe, .notify, .message, .other: return
    default: break
    }
    var event = SignallingJournal.SIPEvent(
      time: time, source: source, destination: destination, message: message)
    // The journal keeps the SDP of the call's media only: what binds streams and tells holds.
    if event.message.sessionDescription?.allMedia.isEmpty ?? false {
      event.message.sessionDescription = nil
    }
    append(.sip(event))
  }

  mutating func malformed(_ reason: SIPMalformedReason) {
    counters.sipMalformed[reason.rawValue, default: 0] += 1
  }

  /// The journal since the last harvest; a new one starts.
  mutating func takeJournal() -> SignallingJournal {
    var taken = SignallingJournal()
    swap(&taken, &journal)
    return taken
  }
}
