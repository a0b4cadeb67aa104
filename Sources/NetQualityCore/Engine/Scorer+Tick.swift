/// The phases of `Scorer.tick`, in their order.
extension Scorer {
  /// The tick's streams: each one's window, the facts scoring reads besides, and its peer's
  /// name, in the harvest's order (each stream noted for its call on the way).
  struct StreamsOfTick {
    var windows: [StreamWindow] = []
    var facts: [StreamFacts] = []
    var names: [String] = []
  }

  /// Drains the harvest's streams into their windows.
  mutating func windowStreams(_ harvest: inout StreamHarvest, now: CaptureTime, interval: Double)
    -> StreamsOfTick
  {
    var tick = StreamsOfTick()
    let streamCount = harvest.streams.count
    tick.windows.reserveCapacity(streamCount)
    tick.facts.reserveCapacity(streamCount)
    tick.names.reserveCapacity(streamCount)
    var streams = ChunkedArray<StreamHarvest.Stream>()
    swap(&streams, &harvest.streams)
    streams.drain { stream in
      tick.windows.append(
        streamWindow(
          stream, feedback: harvest.feedback(at: stream.feedbackIndex),
          senderCadence: harvest.facts(at: stream.senderFactsIndex).cadence, now: now,
          interval: interval))
      tick.facts.append(StreamFacts(stream))
      tick.names.append(peerName(ofStream: stream))
      calls.note(stream, peer: tick.names[tick.names.count - 1])
    }
    return tick
  }

  /// Rules a reload removed or changed end their alerts now, before the rules are evaluated.
  mutating func resolveRetiredAlerts(at now: CaptureTime) -> [EngineEvent] {
    alerts.resolveRetired(at: now).map { alert in
      EngineEvent(
        time: now, kind: .alertResolved, peer: alert.labels["peer"] ?? "", previousState: nil,
        alert: alert)
    }
  }

  /// Every peer of the tick, in the order of their names: each scored from its streams'
  /// windows and its probes in turn (a merge of the streams sorted by peer and the probed
  /// peers), without a table of every peer's window (400 bytes a peer).
  mutating func scorePeers(
    _ tick: StreamsOfTick, harvest: StreamHarvest, now: CaptureTime, interval: Double,
    events: inout [EngineEvent]
  ) -> [PeerSnapshot] {
    let names = tick.names
    let order = sortedByName(tick, streamSlots: harvest.streamSlots)
    // Peers with no stream or probe left are forgotten with their streams.
    // Boxed: a peer's probe figures (922 bytes, optional) passed down the scoring of every
    // peer were copied out at each check for nil, probed or not (perf, issue 37).
    let probed = takeProbeWindows(forgetBefore: forgetCutoff(at: now), now: now).mapValues {
      BoxedProbe($0)
    }
    let probedNames = probed.keys.sorted()
    // Sized for the peers of this tick (the streams' distinct names and the probed ones, at
    // most), not for those remembered: the published array keeps its capacity, and after a
    // wave of calls ends the remembered ones are many and about to be forgotten.
    let streamPeers = order.indices.lazy.filter {
      $0 == 0 || names[order[$0]] != names[order[$0 - 1]]
    }.count
    var snapshots: [PeerSnapshot] = []
    snapshots.reserveCapacity(streamPeers + probed.count)
    var (position, probedPosition) = (0, 0)
    while position < order.count || probedPosition < probedNames.count {
      let name =
        position < order.count
        ? min(names[order[position]], probedNames[safe: probedPosition] ?? names[order[position]])
        : probedNames[probedPosition]
      var window = PeerWindow()
      let first = position
      while position < order.count, names[order[position]] == name {
        let stream = tick.facts[order[position]]
        window.add(
          tick.windows[order[position]], stream,
          feedback: harvest.feedback(at: stream.feedbackIndex),
          peer: harvest.facts(at: stream.peerFactsIndex))
        position += 1
      }
      if probedNames[safe: probedPosition] == name { probedPosition += 1 }
      let streams = order[first..<position].lazy.map { Int(tick.facts[$0].index) }
      var place = streams.first.map { streamPeerPlaces[$0] } ?? -1
      let (snapshot, peerEvents) = updatePeer(
        name, window, probe: probed[name],
        mediaPlace: peerMedia.place(of: name, streams: streams.map { Int32($0) }),
        place: &place, now: now, intervalSeconds: interval)
      for stream in streams where streamPeerPlaces[stream] != place {
        streamPeerPlaces[stream] = place
      }
      counters.record(snapshot, seconds: interval)
      snapshots.append(snapshot)
      events += peerEvents
    }
    return snapshots
  }

  /// The tick's streams in the order of their peers' names (`NameOrder`), each stream's rank
  /// in it kept for the next tick's hint (`streamRanks`, by the analyzer's stream index; a
  /// rank left stale by a reused index costs time, never the order).
  mutating func sortedByName(_ tick: StreamsOfTick, streamSlots: Int) -> [Int] {
    let order = NameOrder.sortedPositions(
      tick.names,
      previousRanks: { position in
        let stream = Int(tick.facts[position].index)
        return stream < streamRanks.count ? streamRanks[stream] : -1
      }, rankCount: streamRankCount)
    if streamRanks.count > streamSlots {
      streamRanks.removeLast(streamRanks.count - streamSlots)
    }
    for (rank, position) in order.enumerated() {
      let stream = Int(tick.facts[position].index)
      if streamRanks.count <= stream {
        streamRanks.append(contentsOf: repeatElement(-1, count: stream + 1 - streamRanks.count))
      }
      streamRanks[stream] = Int32(truncatingIfNeeded: rank)
    }
    streamRankCount = order.count
    return order
  }

  /// The peers remembered but not scored this tick (no stream nor probe left; `scored` were)
  /// are let go, and their alerts resolved. Found by the tick that last scored each record, not
  /// by a set of the names scored: that set, and a lookup in it of every name remembered, were
  /// 6 % of a tick under churn (perf, issue 37).
  mutating func forgetPeers(scored: Int, at now: CaptureTime) -> [EngineEvent] {
    guard peers.count > scored else { return [] }
    var events: [EngineEvent] = []
    let tick = tickNumber
    for name in peers.names(where: { $0.scoredTick != tick }) {
      peers[name] = nil
      for alert in alerts.resolveAll(peer: name, at: now) {
        events.append(
          EngineEvent(time: now, kind: .alertResolved, peer: name, previousState: nil, alert: alert)
        )
      }
    }
    return events
  }

  /// The host's levels: the worst over active peers (counted in place: a filtered copy of
  /// 100,000 snapshots is 40 MB for the length of a tick; a copy of each snapshot and an array
  /// of the active states made for each were 4 % of a tick under churn, perf, issue 37).
  static func hostLevels(_ snapshots: [PeerSnapshot]) -> (rx: QualityLevel, tx: QualityLevel) {
    var (hostRx, hostTx) = (QualityLevel.unknown, QualityLevel.unknown)
    for index in snapshots.indices {
      switch snapshots[index].state {
      case .connected, .held, .interrupted, .disconnected:
        hostRx = hostRx.worse(snapshots[index].rx.level)
        hostTx = hostTx.worse(snapshots[index].tx.level)
      default:
        continue
      }
    }
    return (hostRx, hostTx)
  }
}

extension Array {
  /// The element at `index`, or nil past either end.
  fileprivate subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
