extension StreamAnalyzer {
  /// Forgets every stream silent since `cutoff` (no RTP, no RTCP from its sender): its slot
  /// and table entry are reused by new streams, so an agent that runs for months stays within
  /// `maxStreams`; and every RTCP sender's cadence, STUN round trip and end-of-call signal as
  /// old. Returns how many streams
  /// were forgotten.
  @discardableResult
  public mutating func forget(silentSince cutoff: CaptureTime) -> Int {
    var silent: [Int] = []
    for index in streams.indices where !freeSet.contains(index) {
      let lastRTCP = details[index].feedback.lastSenderRTCPTime?.nanosecondsSinceEpoch ?? 0
      guard max(streams[index].lastArrivalNanoseconds, lastRTCP) < cutoff.nanosecondsSinceEpoch
      else {
        continue
      }
      silent.append(index)
    }
    do {
      let keys = streams
      for index in silent { table.remove(keys[index].key) { keys[$0].key } }
    }
    for index in silent {
      let key = streams[index].key
      if var bySSRC = streamsBySSRC[key.ssrc] {
        bySSRC.removeAll { $0 == Int32(index) }
        streamsBySSRC[key.ssrc] = bySSRC.isEmpty ? nil : bySSRC
      }
      let flow = FlowKey(source: key.source, destination: key.destination)
      if var byFlow = streamsByFlow[flow] {
        byFlow.removeAll { $0 == Int32(index) }
        streamsByFlow[flow] = byFlow.isEmpty ? nil : byFlow
      }
      streams[index].confirmation = nil
      freeIndices.append(index)
      freeSet.insert(index)
    }
    counters.forgottenStreams += Int64(silent.count)
    // RTCP senders silent as long: any address that ever sent RTCP-looking UDP would otherwise
    // stay for good.
    if rtcpCadenceByAddress.values.contains(where: { $0.last < cutoff }) {
      rtcpCadenceByAddress = rtcpCadenceByAddress.filter { $0.value.last >= cutoff }
    }
    if stunRoundTripByAddress.values.contains(where: { ($0.lastTime ?? cutoff) < cutoff }) {
      stunRoundTripByAddress = stunRoundTripByAddress.filter {
        ($0.value.lastTime ?? cutoff) >= cutoff
      }
    }
    if sessionEndByAddress.values.contains(where: { $0.time < cutoff }) {
      sessionEndByAddress = sessionEndByAddress.filter { $0.value.time >= cutoff }
    }
    return silent.count
  }

  /// Whether the stream at `index` was forgotten (its index may be reused by a new stream).
  public func isForgotten(_ index: Int) -> Bool { freeSet.contains(index) }

  /// Streams tracked now (validated or candidates), not counting forgotten slots.
  public var liveStreamCount: Int { streams.count - freeSet.count }
}
