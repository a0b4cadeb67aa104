extension StreamAnalyzer {
  /// Collects (arrival, timestamp) pairs of the stream's first unknown-rate payload type and
  /// replays them into the jitter estimator once the rate is inferred.
  mutating func inferClock(_ index: Int, header: RTPHeader, arrivalNanoseconds: Int64) {
    switch streams[index].inferenceState {
    case .notNeeded:
      // Only a stream with no known clock yet infers one (events beside audio do not).
      guard streams[index].reportedClock.source == .unknown else { return }
      streams[index].inferenceState = .collecting
      streams[index].inferencePayloadType = header.payloadType
      streams[index].inferenceSlot = inferences.take()
    case .collecting:
      guard streams[index].inferencePayloadType == header.payloadType else { return }
    case .done:
      guard streams[index].inferencePayloadType == header.payloadType else { return }
      streams[index].jitter.update(
        arrivalNanoseconds: arrivalNanoseconds, timestamp: header.timestamp,
        secondsPerTick: streams[index].reportedClock.secondsPerTick,
        countsTowardsSummary: !header.marker)
      return
    case .failed:
      return
    }
    let slot = streams[index].inferenceSlot
    guard slot >= 0 else { return }
    inferences[slot].inference.add(
      arrivalNanoseconds: arrivalNanoseconds, timestamp: header.timestamp)
    inferences[slot].packets += 1
    let collected = inferences[slot].packets
    guard collected >= ClockRateInference.bufferCapacity,
      collected % ClockRateInference.bufferCapacity == 0
    else { return }
    guard let rate = inferences[slot].inference.estimateHz() else {
      if collected >= InferenceBuffer.giveUpPackets { endInference(index, .failed) }
      return
    }
    let inference = inferences[slot].inference
    endInference(index, .done)
    streams[index].reportedClock = PayloadClock(rateHz: rate, source: .inferred, isEvent: false)
    for sample in 0..<inference.count {
      streams[index].jitter.update(
        arrivalNanoseconds: inference.arrivals[sample], timestamp: inference.timestamps[sample],
        secondsPerTick: 1 / rate, countsTowardsSummary: true)
    }
    if collected > ClockRateInference.bufferCapacity {
      streams[index].jitter.update(
        arrivalNanoseconds: arrivalNanoseconds, timestamp: header.timestamp,
        secondsPerTick: 1 / rate,
        countsTowardsSummary: !header.marker)
    }
  }

  /// The buffer being filled for the stream at `index`, if it is inferring its clock rate.
  func inferenceBuffer(ofStream index: Int) -> InferenceBuffer? {
    let slot = streams[index].inferenceSlot
    return slot >= 0 ? inferences[slot] : nil
  }

  /// Leaves the collecting state (a rate found, given up, or a known clock arrived) and gives
  /// the stream's buffer back.
  mutating func endInference(_ index: Int, _ state: RTPStream.InferenceState) {
    streams[index].inferenceState = state
    releaseInferenceSlot(ofStream: index)
  }

  /// Gives back the buffer of the stream at `index`, if it has one (also when it is forgotten).
  mutating func releaseInferenceSlot(ofStream index: Int) {
    let slot = streams[index].inferenceSlot
    guard slot >= 0 else { return }
    streams[index].inferenceSlot = -1
    inferences.release(slot)
  }
}

/// What a stream collects while its clock rate is inferred (`ClockRateInference`).
struct InferenceBuffer: Sendable {
  /// Packets of an unknown-rate payload type after which inference stops trying.
  static let giveUpPackets = 4096

  var inference = ClockRateInference()
  var packets = 0
}
