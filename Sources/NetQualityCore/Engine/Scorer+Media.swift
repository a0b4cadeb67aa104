/// The media part of a tick: each stream's media window against its counts at the previous
/// tick, summed per peer and direction with the RTCP feedback between the peer and us.
extension Scorer {
  /// What the scorer keeps of a stream's media between ticks.
  struct MediaBaseline: Sendable {
    var firstArrival: CaptureTime
    var counts: MediaCounts
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
    for stream in harvest.media {
      // By the stream's index, changed in place (`follow(_:)` moves them when the analyzer
      // compacts): a table rebuilt every tick cost a hash and an insert per media stream.
      let index = Int(stream.index)
      while mediaBaselines.count <= index { mediaBaselines.append(nil) }
      var baseline = mediaBaselines[index]
      if baseline?.firstArrival != stream.firstArrival { baseline = nil }
      var window = stream.counts.since(baseline?.counts ?? MediaCounts())
      if window.framesReceived < 0 || window.concealmentEvents < 0 {
        // The stream's media state started over (a video guess that turned out audio).
        window = stream.counts
      }
      mediaBaselines[index] = MediaBaseline(
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
}
