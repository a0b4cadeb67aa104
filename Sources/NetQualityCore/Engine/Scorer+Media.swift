/// The media part of a tick: each stream's media window against its counts at the previous
/// tick, summed per peer and direction with the RTCP feedback between the peer and us.
extension Scorer {
  /// What the scorer keeps of a stream's media between ticks.
  struct MediaBaseline: Sendable {
    var firstArrival: CaptureTime
    var counts: MediaCounts
  }

  /// The tick's media, per stream and per peer (by name).
  mutating func mediaTick(_ harvest: StreamHarvest, interval: Double)
    -> (streams: [StreamMediaSnapshot], peers: [String: PeerMedia])
  {
    var streams: [StreamMediaSnapshot] = []
    streams.reserveCapacity(harvest.media.count)
    var peers: [String: PeerMedia] = [:]
    var kept: [Int32: MediaBaseline] = [:]
    kept.reserveCapacity(harvest.media.count)
    for stream in harvest.media {
      var baseline = mediaBaselines[stream.index]
      if baseline?.firstArrival != stream.firstArrival { baseline = nil }
      var window = stream.counts.since(baseline?.counts ?? MediaCounts())
      if window.framesReceived < 0 || window.concealmentEvents < 0 {
        // The stream's media state started over (a video guess that turned out audio).
        window = stream.counts
      }
      kept[harvest.remapped(stream.index)] = MediaBaseline(
        firstArrival: stream.firstArrival, counts: stream.counts)
      let name = configuration.peerName(stream.peer)
      let fps = stream.isVideo && interval > 0 ? Double(window.framesReceived) / interval : nil
      streams.append(
        StreamMediaSnapshot(
          key: stream.key, direction: stream.direction, peer: name, isVideo: stream.isVideo,
          window: window, total: stream.counts, framesPerSecond: fps))
      var media = peers[name] ?? PeerMedia()
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
        add(&media.rx)
        mediaFleet.rx.add(window)
      } else {
        add(&media.tx)
        mediaFleet.tx.add(window)
      }
      peers[name] = media
    }
    mediaBaselines = kept
    var keptFeedback: [AddressPair: FeedbackCounts] = [:]
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
      let window = counts.since(feedbackBaselines[pair] ?? FeedbackCounts())
      keptFeedback[pair] = counts
      let name = configuration.peerName(peer)
      var media = peers[name] ?? PeerMedia()
      if direction == .tx {
        media.rx.feedbackWindow.add(window)
        media.rx.feedbackTotal.add(counts)
        mediaFleet.rxFeedback.add(window)
      } else {
        media.tx.feedbackWindow.add(window)
        media.tx.feedbackTotal.add(counts)
        mediaFleet.txFeedback.add(window)
      }
      peers[name] = media
    }
    feedbackBaselines = keptFeedback
    streams.sort {
      ($0.peer, $0.direction.rawValue, $0.key.ssrc) < ($1.peer, $1.direction.rawValue, $1.key.ssrc)
    }
    return (streams, peers)
  }
}
