/// The media part of a tick: each stream's media window against its counts at the previous
/// tick, summed per peer and direction with the RTCP feedback between the peer and us.
extension Scorer {
  /// What the scorer keeps of a stream's media between ticks.
  struct MediaBaseline: Sendable {
    /// nil: none yet (a slot not used, or not since the analyzer compacted).
    var firstArrival: CaptureTime?
    var counts = MediaCounts()

    /// The stream's window since this baseline (its counts if the baseline is another
    /// stream's, or none), and the baseline moved to `counts`: changed in its slot, since a
    /// copy of the baseline out of its array and of each harvested stream out of the harvest
    /// was a fifth of the media phase, and the media phase a quarter of a tick under churn
    /// (perf --call-graph dwarf of `netquality-engine-bench --churn 1000 10 130`, issue 37).
    mutating func advance(firstArrival: CaptureTime, counts: MediaCounts) -> MediaCounts {
      var window = counts
      if self.firstArrival == firstArrival { window.subtract(self.counts) }
      if window.framesReceived < 0 || window.concealmentEvents < 0 {
        // The stream's media state started over (a video guess that turned out audio).
        window = counts
      }
      self.firstArrival = firstArrival
      self.counts = counts
      return window
    }
  }

  /// What the scorer keeps of an address pair's RTCP feedback between ticks: its counts, and
  /// the name of the peer it is about.
  struct FeedbackBaseline: Sendable {
    var counts: FeedbackCounts
    var peer: String
  }

  /// The tick's media per stream; per peer (by name) in `peerMedia`.
  mutating func mediaTick(_ harvest: StreamHarvest, interval: Double) -> StreamMediaList {
    var streams = StreamMediaList()
    var peers = PeerMediaTable()
    swap(&peers, &peerMedia)
    defer { swap(&peers, &peerMedia) }
    peers.beginTick(streamSlots: max(harvest.streamSlots, harvest.remap.count))
    harvest.media.withUnsafeBufferPointer { media in
      for position in media.indices {
        addMedia(of: media[position], interval: interval, to: &streams, &peers)
      }
    }
    var keptFeedback: [AddressPair: FeedbackBaseline] = [:]
    keptFeedback.reserveCapacity(harvest.feedbackByPair.count)
    for (pair, counts) in harvest.feedbackByPair {
      let direction = StreamDirection(
        source: pair.source, destination: pair.destination,
        localNetworks: configuration.localNetworks)
      // Feedback goes from a media receiver to its sender: sent to the peer, it is about the
      // peer's media (rx); from the peer, about ours (tx).
      let peer: IPAddress
      switch direction {
      case .tx: peer = pair.destination
      case .rx: peer = pair.source
      case .local, .transit: continue
      }
      let baseline = feedbackBaselines[pair]
      let window = counts.since(baseline?.counts ?? FeedbackCounts())
      // The peer's name made once per pair (formatting an address for every pair at every
      // tick was 2 % of a tick under churn); empty after a reload, which may regroup peers.
      let kept = baseline?.peer ?? ""
      let name = kept.isEmpty ? configuration.peerName(peer) : kept
      keptFeedback[pair] = FeedbackBaseline(counts: counts, peer: name)
      let position = peers.position(of: name)
      if direction == .tx {
        peers.records[position].rx.feedbackWindow.add(window)
        peers.records[position].rx.feedbackTotal.add(counts)
        mediaFleet.rxFeedback.add(window)
      } else {
        peers.records[position].tx.feedbackWindow.add(window)
        peers.records[position].tx.feedbackTotal.add(counts)
        mediaFleet.txFeedback.add(window)
      }
    }
    feedbackBaselines = keptFeedback
    return streams
  }

  /// One harvested stream's media: its window, its snapshot in `streams`, and its share of its
  /// peer's in `peers`. Read where it lies in the harvest (`media[position]`), not copied out.
  @inline(__always)
  private mutating func addMedia(
    of stream: MediaHarvest, interval: Double, to streams: inout StreamMediaList,
    _ peers: inout PeerMediaTable
  ) {
    // By the stream's index, changed in place (`follow(_:)` moves them when the analyzer
    // compacts): a table rebuilt every tick cost a hash and an insert per media stream.
    let index = Int(stream.index)
    while mediaBaselines.count <= index { mediaBaselines.append(MediaBaseline()) }
    let window = mediaBaselines[index].advance(
      firstArrival: stream.firstArrival, counts: stream.counts)
    let name = knownPeerName(
      ofStream: index, firstArrival: stream.firstArrival, address: stream.peer)
    let fps = stream.isVideo && interval > 0 ? Double(window.framesReceived) / interval : nil
    streams.append(
      StreamMediaSnapshot(
        key: stream.key, direction: stream.direction, peer: name, isVideo: stream.isVideo,
        window: window, total: stream.counts, framesPerSecond: fps))
    let position = peers.position(of: name, stream: stream.index)
    func add(_ direction: inout DirectionMedia) {
      direction.window.add(window)
      direction.total.add(stream.counts)
      if stream.isVideo {
        direction.videoStreams += 1
        direction.framesPerSecond = (direction.framesPerSecond ?? 0) + (fps ?? 0)
      } else {
        direction.audioStreams += 1
      }
    }
    if stream.direction == .rx {
      add(&peers.records[position].rx)
      mediaFleet.rx.add(window)
    } else {
      add(&peers.records[position].tx)
      mediaFleet.tx.add(window)
    }
  }
}
