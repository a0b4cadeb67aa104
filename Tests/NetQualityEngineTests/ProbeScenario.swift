import NetQualityCore

/// Probes to a stateful STAMP reflector at the remote host, settled in sequence order with a
/// deadline, as the probe session hands them to the engine.
extension Scenario {
  static let reflector = Endpoint(address: remote.address, port: 862)

  /// What a simulated probe run did, counted on the way (the test's truth).
  struct ProbeTruth {
    var sent = 0
    var forwardDropped = 0
    var backwardDropped = 0
  }

  /// Probes at `rate` per second over [start, end) seconds. `forwardDelay(i)` and
  /// `backwardDelay(i)` are one-way delays in seconds (nil drops the packet in that direction).
  /// The reflector's clock runs `reflectorOffset` seconds ahead and holds each probe 50 µs.
  @discardableResult
  mutating func probes(
    seconds range: Range<Double>, rate: Double = 50, deadlineSeconds: Double = 1,
    firstSequence: Int = 0, firstReflectorSequence: inout Int,
    reflectorOffset: Double = 3.5, synchronized: Bool = false,
    forwardDelay: (Int) -> Double? = { _ in 0.02 }, backwardDelay: (Int) -> Double? = { _ in 0.02 }
  ) -> ProbeTruth {
    var truth = ProbeTruth()
    let count = Int(((range.upperBound - range.lowerBound) * rate).rounded())
    var samples: [(settle: Double, sample: ProbeSample)] = []
    for offset in 0..<count {
      let sequence = firstSequence + offset
      let sent = range.lowerBound + Double(offset) / rate
      truth.sent += 1
      var outcome = ProbeSample.Outcome.lost
      var settle = sent + deadlineSeconds
      if let forward = forwardDelay(sequence) {
        let reflectorSequence = firstReflectorSequence
        firstReflectorSequence += 1
        if let backward = backwardDelay(sequence) {
          let t2 = sent + forward + reflectorOffset
          let t3 = t2 + 0.000_05
          let t4 = t3 - reflectorOffset + backward
          outcome = .replied(
            ProbeReply(
              reflectorReceivedAt: Self.time(t2), reflectorSentAt: Self.time(t3),
              receivedAt: Self.time(t4), reflectorSequence: UInt32(reflectorSequence),
              clocksSynchronized: synchronized))
          settle = t4
        } else {
          truth.backwardDropped += 1
        }
      } else {
        truth.forwardDropped += 1
      }
      samples.append(
        (
          settle,
          ProbeSample(
            target: Self.reflector, sequence: UInt32(truncatingIfNeeded: sequence),
            sentAt: Self.time(sent), outcome: outcome)
        ))
    }
    // In sequence order: a probe settles no earlier than the one before it.
    var latest = -Double.infinity
    for (settle, sample) in samples {
      latest = max(latest, settle)
      advance(to: Self.time(latest).nanosecondsSinceEpoch)
      engine.record(probe: sample)
    }
    return truth
  }

  /// The probe figures of the peer at every tick (nil where the peer is absent).
  var probePeers: [PeerSnapshot?] {
    ticks.map { tick in tick.snapshot.peers.first { $0.peer == Self.peer } }
  }
}
