import NetQualityCore
import NetQualityProbe

/// Probes to a stateful STAMP reflector at the remote host, through the real probe session
/// (`STAMPSession`: sends, answers in the order they arrive, settlement in sequence order with
/// a 1 s deadline), its samples fed to the engine as the agent does.
extension Scenario {
  static let reflector = Endpoint(address: remote.address, port: 862)

  /// What a simulated probe run did, counted on the way (the test's truth).
  struct ProbeTruth {
    var sent = 0
    var forwardDropped = 0
    var backwardDropped = 0
    /// A stalled reflector's backlog: answered when it went on, refused (its rate limit), or
    /// dropped by its full socket buffer.
    var answeredLate = 0
    var refused = 0
    var droppedAtReflector = 0
    /// A spoofer's packets (sent with our address and port) the reflector answered to us.
    var spoofedAnswered = 0
  }

  /// A reflector that stops reading (SIGSTOP) over `seconds`: the probes reaching it meanwhile
  /// wait in its socket buffer (at most `queued`; the kernel drops the rest), and when it goes
  /// on it reads them all at once, answers the first `answered` (its per-source token bucket's
  /// burst: 400 in `netquality reflect`) and refuses the rest unnumbered (rate limited).
  struct ReflectorStall {
    var seconds: Range<Double>
    var queued = Int.max
    var answered = 400
  }

  /// Probes at `rate` per second over [start, end) seconds, numbered on from the session's
  /// next sequence number. `forwardDelay(i)` and `backwardDelay(i)` are one-way delays in
  /// seconds of probe i (nil drops it in that direction). The reflector numbers the probes in
  /// the order they reach it, from `firstReflectorSequence`; its clock runs `reflectorOffset`
  /// seconds ahead and it holds each probe 50 µs (reading one takes it 10 µs), or, in a
  /// `stall`, until it goes on. A spoofer sends `spoofedPerSecond` packets a second with our
  /// address and port (unauthenticated), sequence numbers we never sent: the reflector numbers
  /// them with ours and answers them to us.
  @discardableResult
  mutating func probes(
    seconds range: Range<Double>, rate: Double = 50, firstReflectorSequence: inout Int,
    reflectorOffset: Double = 3.5, synchronized: Bool = false,
    forwardDelay: (Int) -> Double? = { _ in 0.02 }, backwardDelay: (Int) -> Double? = { _ in 0.02 },
    stall: ReflectorStall? = nil, spoofedPerSecond: Double = 0
  ) -> ProbeTruth {
    var truth = ProbeTruth()
    let count = Int(((range.upperBound - range.lowerBound) * rate).rounded())
    let first = Int(probeSession.sequenceToSend ?? 0)
    struct Probe {
      var sequence: Int
      var sent: Double
      var arrival: Double?
      var backward: Double?
    }
    var probes: [Probe] = []
    // When the reflector read each probe it answers (T3 is 50 µs after).
    var readAt: [Int: Double] = [:]
    for offset in 0..<count {
      let sequence = first + offset
      let sent = range.lowerBound + Double(offset) / rate
      let forward = forwardDelay(sequence)
      probes.append(
        Probe(
          sequence: sequence, sent: sent, arrival: forward.map { sent + $0 },
          backward: backwardDelay(sequence)))
      truth.sent += 1
      if forward == nil {
        truth.forwardDropped += 1
      } else if probes[offset].backward == nil {
        truth.backwardDropped += 1
      }
    }
    // The spoofer's packets, numbered -1, -2, ... here, reach the reflector 20 ms after they
    // leave, a third of the way between two of ours.
    let spoofed = Int(((range.upperBound - range.lowerBound) * spoofedPerSecond).rounded())
    let spoofArrivals = (0..<spoofed).map {
      (
        sequence: -1 - $0,
        arrival: range.lowerBound + 0.02 + 0.33 / rate + Double($0) / spoofedPerSecond
      )
    }
    // The reflector reads the probes in the order they reach it (a stall's backlog when it
    // goes on) and numbers those it answers.
    var numbers: [Int: Int] = [:]
    var lastRead = -Double.infinity
    var backlog = 0
    let arrivals =
      probes.compactMap { probe in probe.arrival.map { (sequence: probe.sequence, arrival: $0) } }
      + spoofArrivals
    for probe in arrivals.sorted(by: { ($0.arrival, $0.sequence) < ($1.arrival, $1.sequence) }) {
      let arrival = probe.arrival
      var ready = arrival
      if let stall, stall.seconds.contains(arrival) {
        backlog += 1
        guard backlog <= stall.queued else {
          truth.droppedAtReflector += 1
          continue
        }
        ready = stall.seconds.upperBound
        guard backlog <= stall.answered else {
          truth.refused += 1
          lastRead = max(ready, lastRead + 0.000_01)
          continue
        }
        truth.answeredLate += 1
      }
      lastRead = ready > lastRead ? ready : lastRead + 0.000_01
      readAt[probe.sequence] = lastRead
      numbers[probe.sequence] = firstReflectorSequence
      firstReflectorSequence += 1
    }
    // Sends and answers in time order (an answer after a send at the same instant).
    enum Step {
      case send
      case answer(ProbeReply)
    }
    var steps: [(time: Double, order: Int, sequence: Int, step: Step)] = []
    var sentAt: [Int: CaptureTime] = [:]
    for (sequence, _) in spoofArrivals {
      guard let number = numbers[sequence], let read = readAt[sequence] else { continue }
      let t3 = read + reflectorOffset + 0.000_05
      let reply = ProbeReply(
        reflectorReceivedAt: Self.time(read + reflectorOffset),
        reflectorSentAt: Self.time(t3), receivedAt: Self.time(t3 - reflectorOffset + 0.02),
        reflectorSequence: UInt32(number), clocksSynchronized: synchronized)
      // Their sequence numbers, far from ours: never sent.
      steps.append((t3 - reflectorOffset + 0.02, 1, 0x4000_0000 - sequence, .answer(reply)))
      truth.spoofedAnswered += 1
    }
    for probe in probes {
      sentAt[probe.sequence] = Self.time(probe.sent)
      steps.append((probe.sent, 0, probe.sequence, .send))
      guard let arrival = probe.arrival, let backward = probe.backward,
        let number = numbers[probe.sequence], let read = readAt[probe.sequence]
      else { continue }
      // T2 is the kernel's receive time, T3 the reflector's send.
      let t2 = arrival + reflectorOffset
      let t3 = read + reflectorOffset + 0.000_05
      let t4 = t3 - reflectorOffset + backward
      let reply = ProbeReply(
        reflectorReceivedAt: Self.time(t2), reflectorSentAt: Self.time(t3),
        receivedAt: Self.time(t4), reflectorSequence: UInt32(number),
        clocksSynchronized: synchronized)
      steps.append((t4, 1, probe.sequence, .answer(reply)))
    }
    steps.sort { ($0.time, $0.order, $0.sequence) < ($1.time, $1.order, $1.sequence) }
    for (time, _, sequence, step) in steps {
      settleProbes(at: time)
      switch step {
      case .send:
        probeSession.sent(at: Self.time(time))
      case .answer(let reply):
        switch probeSession.receive(
          sequence: UInt32(truncatingIfNeeded: sequence), reply: reply,
          echoedSentAt: sentAt[sequence])
        {
        case .duplicate(let sample), .late(let sample):
          engine.record(probe: sample)
        case .unexpected:
          // As `STAMPSender` hands it on.
          engine.record(
            probe: ProbeSample(
              target: Self.reflector, sequence: UInt32(truncatingIfNeeded: sequence),
              sentAt: reply.receivedAt, outcome: .unexpected(receivedAt: reply.receivedAt)))
        case .accepted:
          break
        }
      }
      settleProbes(at: time)
    }
    return truth
  }

  /// Ticks to `seconds` and hands the engine what the session settles by then.
  mutating func settleProbes(at seconds: Double) {
    advance(to: Self.time(seconds).nanosecondsSinceEpoch)
    var samples: [ProbeSample] = []
    probeSession.settle(now: Self.time(seconds)) { samples.append($0) }
    for sample in samples { engine.record(probe: sample) }
  }

  /// Settles the probes still in flight at their deadlines, ticking on to `seconds`.
  mutating func finishProbes(until seconds: Double) {
    var time = 0.0
    while let deadline = probeSession.nextDeadline {
      time = deadline.seconds(since: Self.time(0))
      settleProbes(at: time)
    }
    idle(until: max(seconds, time))
  }

  /// The probe figures of the peer at every tick (nil where the peer is absent).
  var probePeers: [PeerSnapshot?] {
    ticks.map { tick in tick.snapshot.peers.first { $0.peer == Self.peer } }
  }
}
