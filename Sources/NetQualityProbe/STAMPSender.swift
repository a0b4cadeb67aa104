import NetQualityCore

/// The sending end of one STAMP session (RFC 8762 section 4.2): a thin shell that stamps and
/// sends probes on schedule, reads the reflector's answers and hands the settled probes on.
/// The bookkeeping is `STAMPSession`'s and the measurement the engine's (`ProbeTracker`).
/// Buffers are made once: sending and receiving allocate nothing per probe.
public final class STAMPSender {
  public struct Options: Sendable {
    public var target: Endpoint
    /// 50 packets/s: a voice stream's rate (RFC 3551 section 4.5, 20 ms frames).
    public var ratePerSecond = 50.0
    /// UDP payload bytes; 0: the mode's base packet (44 or 112 octets).
    public var sizeBytes = 0
    /// DiffServ code point (6 bits); 46 (EF) is voice's (RFC 4594 section 4.1).
    public var dscp: UInt8 = 46
    public var timeoutSeconds = 1.0
    /// Authenticated mode (RFC 8762 section 4.4) with this key.
    public var key: STAMPKey?
    /// Our S bit (RFC 4656 section 4.1.2): only with a disciplined clock.
    public var clockSynchronized = false

    public init(target: Endpoint) {
      self.target = target
    }

    /// Whether a sender made with `other` sends exactly what one made with these would (the
    /// keys compared by their secrets).
    public func sendsLike(_ other: Options) -> Bool {
      target == other.target && ratePerSecond == other.ratePerSecond
        && sizeBytes == other.sizeBytes && dscp == other.dscp
        && timeoutSeconds == other.timeoutSeconds && clockSynchronized == other.clockSynchronized
        && {
          switch (key, other.key) {
          case (nil, nil): true
          case (let a?, let b?): a.isSameKey(as: b)
          default: false
          }
        }()
    }
  }

  /// Answers refused, by reason, and sends the socket could not take.
  public struct Counters: Sendable, Equatable {
    /// From an address other than the target's.
    public var foreign: Int64 = 0
    /// Too short, truncated, or with timestamps that cannot be read.
    public var malformed: Int64 = 0
    /// Authenticated mode: the HMAC did not match our key.
    public var badHMAC: Int64 = 0
    /// From the target, read well, and to no probe we sent or remember (a sequence number
    /// never sent, or settled long ago): a reflector answering packets someone else sent with
    /// our address and port — the sign of spoofing an unauthenticated session can show
    /// (issue 39). Our own probes' loss meanwhile may be the spoofer's doing (it spends the
    /// reflector's budget for our address), so it is flagged as possibly spoofed.
    public var unexpected: Int64 = 0
    /// The socket's buffer was full: the probe was not sent (and not counted as sent).
    public var sendBufferFull: Int64 = 0
    /// Probes never sent because the loop woke too late for them (see `sendIfDue`).
    public var missedSends: Int64 = 0
    /// Probes the socket refused (no route, a local firewall's reject): counted as sent, so
    /// they settle as lost and the target goes down like one behind a dead path.
    public var sendErrors: Int64 = 0
    /// Probes not sent because the in-flight window was full (`STAMPSession.skipped`).
    public var windowFull: Int64 = 0

    public init() {}
  }

  public let options: Options
  public let socket: UDPSocket
  public private(set) var session: STAMPSession
  public private(set) var counters = Counters()
  /// The latest send error, for a log line when it changes (not one per probe).
  public private(set) var lastSendError: String?
  private let mode: STAMPMode
  private let packetLength: Int
  private let intervalNanoseconds: Int64
  /// Our error estimate, the same on every probe.
  private let errorEstimate: STAMPErrorEstimate
  /// When the next probe is due (monotonic); nil until the loop first looks (`sendIfDue`).
  private var nextSendAt: CaptureTime?
  /// How long after the loop's first look the first probe is due.
  private let phaseNanoseconds: Int64
  private let sendBuffer: UnsafeMutableRawBufferPointer
  private let receiveBuffer: UnsafeMutableRawBufferPointer

  /// A sender bound to an ephemeral port of the target's family. Its first probe is due
  /// `phaseSeconds` after the loop first calls `sendIfDue`: many senders made at once (an
  /// agent's targets) keep their spread over the interval however late their thread starts,
  /// and a schedule not begun has missed nothing.
  public init(options: Options, phaseSeconds: Double = 0) throws(SocketError) {
    self.options = options
    mode = options.key == nil ? .unauthenticated : .authenticated
    packetLength = max(options.sizeBytes, STAMPSenderPacket.baseLength(mode))
    let any =
      options.target.address.isIPv4 ? IPAddress(ipv4: 0, 0, 0, 0) : IPAddress(high: 0, low: 0)
    socket = try UDPSocket(binding: Endpoint(address: any, port: 0))
    try socket.setTrafficClass(options.dscp << 2)
    session = STAMPSession(
      target: options.target, deadlineSeconds: options.timeoutSeconds,
      capacity: STAMPSession.capacity(
        ratePerSecond: options.ratePerSecond, deadlineSeconds: options.timeoutSeconds))
    intervalNanoseconds = max(1, Int64((1e9 / options.ratePerSecond).rounded()))
    errorEstimate = STAMPErrorEstimate(
      seconds: Self.unsynchronisedErrorSeconds, isSynchronized: options.clockSynchronized)
    phaseNanoseconds = Int64((max(0, phaseSeconds) * 1e9).rounded())
    sendBuffer = .allocate(byteCount: packetLength, alignment: 8)
    // An answer is never larger than the probe from a conforming reflector; room for more
    // tells a larger one apart (truncated, refused).
    receiveBuffer = .allocate(byteCount: max(packetLength, 1500) + 1, alignment: 8)
  }

  deinit {
    sendBuffer.deallocate()
    receiveBuffer.deallocate()
  }

  /// Milliseconds a loop may wait (poll(2)) before something of this sender is due: the next
  /// send (when `sending`) or the oldest probe's deadline; at most `limit`. Rounded up, or a
  /// wait under 1 ms would spin.
  public func millisecondsUntilDue(sending: Bool, limit: Int32) -> Int32 {
    let nanoseconds = nanosecondsUntilDue(
      sending: sending, monotonicNow: WallClock.monotonicNow(), now: WallClock.now(),
      limit: Int64(limit) * 1_000_000)
    return Int32(max(0, (nanoseconds + 999_999) / 1_000_000))
  }

  /// Nanoseconds until the next send (when `sending`; at monotonic `monotonicNow`) or the
  /// oldest probe's deadline (at wall-clock `now`), at most `limit`; 0 when one is due. A loop
  /// over many senders reads the clocks once for all of them.
  public func nanosecondsUntilDue(
    sending: Bool, monotonicNow: CaptureTime, now: CaptureTime, limit: Int64
  ) -> Int64 {
    var nanoseconds = limit
    if sending {
      // Not begun: due now, so that the loop begins it.
      let due = nextSendAt?.nanosecondsSinceEpoch ?? monotonicNow.nanosecondsSinceEpoch
      nanoseconds = min(nanoseconds, due - monotonicNow.nanosecondsSinceEpoch)
    }
    if let deadline = session.nextDeadline {
      nanoseconds = min(nanoseconds, deadline.nanosecondsSinceEpoch - now.nanosecondsSinceEpoch)
    }
    return max(0, nanoseconds)
  }

  /// Sends the probe due at monotonic `now`, if one is. A loop that fell behind by more than
  /// an interval (the process was stopped, the machine overloaded) skips the missed probes
  /// instead of sending them in a burst that would measure its own queue. A send the socket
  /// refuses is a lost probe (`Counters.sendErrors`), not an error of the loop. Returns how
  /// late the probe left after its scheduled time, in nanoseconds (nil: none was due, or it
  /// could not leave).
  @discardableResult
  public func sendIfDue(monotonicNow now: CaptureTime) -> Int64? {
    let nextSendAt = self.nextSendAt ?? begin(at: now)
    guard now >= nextSendAt else { return nil }
    let lateness = now.nanosecondsSinceEpoch - nextSendAt.nanosecondsSinceEpoch
    let missed = lateness / intervalNanoseconds
    counters.missedSends += missed
    self.nextSendAt = nextSendAt.advanced(byNanoseconds: (missed + 1) * intervalNanoseconds)
    guard let sequence = session.sequenceToSend else {
      session.sent(at: WallClock.now())  // counted as skipped
      counters.windowFull = session.skipped
      return nil
    }
    // T1 as late as possible before the send (RFC 8762 section 4.2.1).
    let sentAt = WallClock.now()
    let packet = STAMPSenderPacket(
      sequenceNumber: sequence, timestamp: STAMPTimestamp(ntp: sentAt),
      errorEstimate: errorEstimate)
    do {
      try packet.encode(into: sendBuffer, totalLength: packetLength, key: options.key)
    } catch {
      // The buffer is sized for the packet: not reachable, but never a trap.
      counters.malformed += 1
      return nil
    }
    do {
      if try socket.send(UnsafeRawBufferPointer(sendBuffer), to: options.target) {
        session.sent(at: sentAt)
        lastSendError = nil
      } else {
        counters.sendBufferFull += 1
        return nil
      }
    } catch {
      session.sent(at: sentAt)
      counters.sendErrors += 1
      lastSendError = error.description
    }
    return lateness % intervalNanoseconds
  }

  /// The schedule's start: the first probe `phaseNanoseconds` after the loop's first look.
  private func begin(at now: CaptureTime) -> CaptureTime {
    let first = now.advanced(byNanoseconds: phaseNanoseconds)
    nextSendAt = first
    return first
  }

  /// Reads every answer waiting on the socket; duplicates and late answers go to `sink` at
  /// once.
  public func receiveAnswers(_ sink: (ProbeSample) -> Void) throws(SocketError) {
    while let datagram = try socket.receive(into: receiveBuffer) {
      guard datagram.source == options.target else {
        counters.foreign += 1
        continue
      }
      guard !datagram.isTruncated else {
        counters.malformed += 1
        continue
      }
      let bytes = UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<datagram.length])
      let packet: STAMPReflectorPacket
      do {
        if let key = options.key {
          packet = try STAMPReflectorPacket(decoding: bytes, key: key)
        } else {
          packet = try STAMPReflectorPacket(decoding: bytes, mode: .unauthenticated)
        }
      } catch {
        if case .badHMAC = error { counters.badHMAC += 1 } else { counters.malformed += 1 }
        continue
      }
      let receivedAt = datagram.receiveTime
      let format = packet.errorEstimate.timestampFormat
      guard
        let reflectorReceivedAt = packet.receiveTimestamp.time(format: format, near: receivedAt),
        let reflectorSentAt = packet.timestamp.time(format: format, near: receivedAt)
      else {
        counters.malformed += 1
        continue
      }
      let reply = ProbeReply(
        reflectorReceivedAt: reflectorReceivedAt, reflectorSentAt: reflectorSentAt,
        receivedAt: receivedAt, reflectorSequence: packet.sequenceNumber,
        clocksSynchronized: options.clockSynchronized && packet.errorEstimate.isSynchronized,
        kernelTimestamp: datagram.timestampSource == .kernel)
      // Our own T1, copied back: the send time of a late answer's probe long forgotten.
      let echoedSentAt = packet.senderTimestamp.time(
        format: packet.senderErrorEstimate.timestampFormat, near: receivedAt)
      switch session.receive(
        sequence: packet.senderSequenceNumber, reply: reply, echoedSentAt: echoedSentAt)
      {
      case .duplicate(let sample), .late(let sample):
        sink(sample)
      case .unexpected:
        counters.unexpected += 1
        sink(
          ProbeSample(
            target: options.target, sequence: packet.senderSequenceNumber, sentAt: receivedAt,
            outcome: .unexpected(receivedAt: receivedAt)))
      case .accepted:
        break
      }
    }
  }

  /// Hands on, in order, the probes answered and those past their deadline at wall-clock
  /// `now`.
  public func settle(now: CaptureTime, _ sink: (ProbeSample) -> Void) {
    session.settle(now: now, sink)
  }

  /// The error estimate we state without a disciplined clock: 1 s, what an unsynchronised
  /// host clock may well be off by (RFC 4656 section 4.1.2 asks for an honest bound).
  static let unsynchronisedErrorSeconds = 1.0
}
