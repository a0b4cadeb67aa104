extension StreamAnalyzer {
  /// Forgets every stream silent since `cutoff` (no RTP, no RTCP from its sender): its slot
  /// and table entry are reused by new streams, so an agent that runs for months stays within
  /// `maxStreams`; and every RTCP sender's cadence, STUN round trip and end-of-call signal as
  /// old. Returns how many streams
  /// were forgotten.
  @discardableResult
  public mutating func forget(silentSince cutoff: CaptureTime) -> Int {
    let silent = streams.indices.filter { !freeSet.contains($0) && isSilent($0, since: cutoff) }
    return forget(silent, cutoff: cutoff)
  }

  /// Whether the live stream at `index` was silent since `cutoff`: no RTP, no RTCP from its
  /// sender.
  ///
  /// Inlined: called from the analyser's mutating methods (per packet, per stream and
  /// harvest), a call copied the whole analyser (2.5 KB) into a temporary (Swift passes a
  /// struct this large by address; perf, issue 37).
  @inline(__always)
  func isSilent(_ index: Int, since cutoff: CaptureTime) -> Bool {
    let lastRTCP = lastSenderRTCPTime(ofStream: index)?.nanosecondsSinceEpoch ?? 0
    return max(streams[index].lastArrivalNanoseconds, lastRTCP) < cutoff.nanosecondsSinceEpoch
  }

  /// Forgets the streams `silent` (found silent since `cutoff` by `isSilent`), and the facts
  /// about addresses as old (see `forget(silentSince:)`).
  mutating func forget(_ silent: [Int], cutoff: CaptureTime) -> Int {
    do {
      let keys = streams
      for index in silent { table.remove(keys[index].key) { keys[$0].key } }
    }
    for index in silent {
      let key = streams[index].key
      streamsBySSRC.remove(index, tag: StreamKey.ssrcTableTag(key.ssrc))
      streamsByFlow.remove(index, tag: FlowKey(key).tableTag)
      streams[index].confirmation = nil
      streams[index].confirmedByFlow = false
      releaseInferenceSlot(ofStream: index)
      releaseFeedback(ofStream: index)
      releaseMedia(ofStream: index)
      freeIndices.append(index)
      freeSet.insert(index)
    }
    counters.forgottenStreams += Int64(silent.count)
    // RTCP senders silent as long: any address that ever sent RTCP-looking UDP would otherwise
    // stay for good.
    addresses.forget(before: cutoff)
    forgetSignalledMedia(unusedSince: cutoff)
    forgetFeedback(silentSince: cutoff)
    return silent.count
  }

  /// SDP media signalled before `cutoff` that no live stream uses any more (the call ended,
  /// or never came): a SIP gateway sees a new offer for every call. An entry a live stream
  /// still uses takes that stream's last arrival, so the pass over the streams that tells it
  /// runs at most once per forgetting interval for a long call, not at every tick.
  mutating func forgetSignalledMedia(unusedSince cutoff: CaptureTime) {
    guard signalledMedia.values.contains(where: { $0.lastUsed < cutoff }) else { return }
    var lastUse: [Endpoint: CaptureTime] = [:]
    for index in streams.indices where !freeSet.contains(index) {
      let key = streams[index].key
      let arrival = CaptureTime(nanosecondsSinceEpoch: streams[index].lastArrivalNanoseconds)
      for endpoint in [key.source, key.destination] where signalledMedia[endpoint] != nil {
        lastUse[endpoint] = max(lastUse[endpoint] ?? arrival, arrival)
      }
    }
    var kept: [Endpoint: SignalledMedia] = [:]
    for (endpoint, var entry) in signalledMedia {
      if let used = lastUse[endpoint] { entry.lastUsed = max(entry.lastUsed, used) }
      if entry.lastUsed >= cutoff { kept[endpoint] = entry }
    }
    signalledMedia = kept
  }

  /// Whether the stream at `index` was forgotten (its index may be reused by a new stream).
  public func isForgotten(_ index: Int) -> Bool { freeSet.contains(index) }

  /// Streams tracked now (validated or candidates), not counting forgotten slots.
  public var liveStreamCount: Int { streams.count - freeSet.count }

  /// Shrinks the stream arrays, the table and the indices to the live streams once at least
  /// three quarters of the slots are free (a wave of calls ended): memory comes back after
  /// churn instead of staying at the peak. Live streams keep their order; `remap` gets, for
  /// every old index, the new one (or -1 for a forgotten slot), for whoever keeps per-index
  /// state (`Scorer`). The copy is of the live streams only, and happens only after three
  /// times as many were forgotten, so its cost is amortised over those forgettings. Returns
  /// whether it compacted.
  @discardableResult
  public mutating func compactIfSparse(remap: inout [Int32]) -> Bool {
    remap.removeAll()
    guard streams.count >= Self.compactionMinimumSlots, freeSet.count * 4 >= streams.count * 3
    else { return false }
    remap = [Int32](repeating: -1, count: streams.count)
    var keptStreams = ChunkedArray<RTPStream>()
    let live = streams.count - freeSet.count
    for index in streams.indices where !freeSet.contains(index) {
      remap[index] = Int32(keptStreams.count)
      keptStreams.append(streams[index])
    }
    for index in keptStreams.indices where keptStreams[index].repair.repairedIndex >= 0 {
      keptStreams[index].repair.repairedIndex = remap[Int(keptStreams[index].repair.repairedIndex)]
    }
    streams = keptStreams
    remoteFactsSlots = ChunkedArray()  // looked up again once each, at the next harvest
    freeIndices = []
    freeSet = SlotSet()
    table = StreamTable(initialCapacity: max(1024, live))
    streamsBySSRC = StreamIndexTable(minimumCapacity: live)
    streamsByFlow = StreamIndexTable(minimumCapacity: live)
    var liveSenders = Set<SenderKey>()
    for index in streams.indices {
      let key = streams[index].key
      // Sized for every live stream: no rehash happens, the sequence is there for the contract.
      let keys = streams
      table.insert(
        key, at: index, rehashing: keys.indices.prefix(index).lazy.map { ($0, keys[$0].key) })
      streamsBySSRC.insert(index, tag: StreamKey.ssrcTableTag(key.ssrc))
      streamsByFlow.insert(index, tag: FlowKey(key).tableTag)
      liveSenders.insert(SenderKey(address: key.sourceAddress, ssrc: key.ssrc))
    }
    // Facts about senders that no live stream has any more.
    senderReports = senderReports.filter { liveSenders.contains($0.key) }
    return true
  }

  /// Below this many slots the arrays are left as they are (a few hundred kilobytes).
  static let compactionMinimumSlots = 4096
}
