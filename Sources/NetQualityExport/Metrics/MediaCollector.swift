import NetQualityCore

/// Media experience (docs/media.md): per peer and direction for the peers with series of their
/// own (`PeerCollector.seriesPeers`, within `metrics.max_peer_series`), and fleet-wide totals
/// per direction that never go back when peers are forgotten.
public struct MediaCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .peerVideoFramesReceivedTotal, .peerVideoFramesIncompleteTotal, .peerVideoFramesPerSecond,
    .peerVideoFreezesTotal, .peerVideoFreezeSecondsTotal, .peerVideoPausesTotal,
    .peerVideoPauseSecondsTotal, .peerVideoKeyFramesTotal, .peerAudioConcealedSecondsTotal,
    .peerAudioConcealmentEventsTotal, .peerRTCPFeedbackTotal, .peerNACKedPacketsTotal,
    .videoFramesReceivedTotal, .videoFreezesTotal, .videoFreezeSecondsTotal, .videoPausesTotal,
    .audioConcealedSecondsTotal, .rtcpFeedbackTotal,
  ]

  /// The shown peers that have media, in name order.
  public var peers: [(name: String, media: PeerMedia)]
  public var fleet: MediaFleetCounters

  public init(shown: [PeerSnapshot], fleet: MediaFleetCounters) {
    peers = shown.compactMap { peer in peer.media.map { (peer.peer, $0) } }
    self.fleet = fleet
  }

  /// The directions of each peer that have video, audio or feedback.
  private var directions: [(peer: String, direction: String, media: DirectionMedia)] {
    peers.flatMap { peer in
      [("rx", peer.media.rx), ("tx", peer.media.tx)].filter { !$0.1.isEmpty }.map {
        (peer.name, $0.0, $0.1)
      }
    }
  }

  public func collect(into out: inout MetricsWriter) {
    let directions = directions
    let video = directions.filter { $0.media.videoStreams > 0 }
    let audio = directions.filter { $0.media.audioStreams > 0 }
    func perPeer(
      _ family: MetricFamily, _ rows: [(peer: String, direction: String, media: DirectionMedia)],
      _ value: (DirectionMedia) -> Double?
    ) {
      out.family(family)
      for row in rows {
        guard let number = value(row.media) else { continue }
        out.sample(family, [("peer", row.peer), ("direction", row.direction)], number)
      }
    }
    perPeer(.peerVideoFramesReceivedTotal, video) { Double($0.total.framesReceived) }
    perPeer(.peerVideoFramesIncompleteTotal, video) { Double($0.total.framesIncomplete) }
    perPeer(.peerVideoFramesPerSecond, video) { $0.framesPerSecond }
    perPeer(.peerVideoFreezesTotal, video) { Double($0.total.freezes) }
    perPeer(.peerVideoFreezeSecondsTotal, video) { $0.total.freezesSeconds }
    perPeer(.peerVideoPausesTotal, video) { Double($0.total.pauses) }
    perPeer(.peerVideoPauseSecondsTotal, video) { $0.total.pausesSeconds }
    perPeer(.peerVideoKeyFramesTotal, video) { Double($0.total.keyFrames) }
    perPeer(.peerAudioConcealedSecondsTotal, audio) { $0.total.concealedSeconds }
    perPeer(.peerAudioConcealmentEventsTotal, audio) { Double($0.total.concealmentEvents) }
    out.family(.peerRTCPFeedbackTotal)
    for row in directions where !row.media.feedbackTotal.isEmpty {
      for (type, count) in Self.feedbackTypes(row.media.feedbackTotal) {
        out.sample(
          .peerRTCPFeedbackTotal,
          [("peer", row.peer), ("direction", row.direction), ("type", type)], Double(count))
      }
    }
    perPeer(.peerNACKedPacketsTotal, directions.filter { !$0.media.feedbackTotal.isEmpty }) {
      Double($0.feedbackTotal.nackedPackets)
    }
    let fleetRows = [("rx", fleet.rx, fleet.rxFeedback), ("tx", fleet.tx, fleet.txFeedback)]
    func fleetFamily(_ family: MetricFamily, _ value: (MediaCounts) -> Double) {
      out.family(family)
      for (direction, counts, _) in fleetRows {
        out.sample(family, [("direction", direction)], value(counts))
      }
    }
    fleetFamily(.videoFramesReceivedTotal) { Double($0.framesReceived) }
    fleetFamily(.videoFreezesTotal) { Double($0.freezes) }
    fleetFamily(.videoFreezeSecondsTotal) { $0.freezesSeconds }
    fleetFamily(.videoPausesTotal) { Double($0.pauses) }
    fleetFamily(.audioConcealedSecondsTotal) { $0.concealedSeconds }
    out.family(.rtcpFeedbackTotal)
    for (direction, _, feedback) in fleetRows {
      for (type, count) in Self.feedbackTypes(feedback) {
        out.sample(.rtcpFeedbackTotal, [("direction", direction), ("type", type)], Double(count))
      }
    }
  }

  /// The message counts by `type` label.
  static func feedbackTypes(_ counts: FeedbackCounts) -> [(String, Int64)] {
    [
      ("nack", counts.nackMessages), ("pli", counts.pictureLossIndications),
      ("fir", counts.fullIntraRequests), ("remb", counts.estimateMessages),
      ("transport_cc", counts.transportFeedbackMessages),
    ]
  }
}

// MARK: The families

extension MetricFamily {
  public static let peerVideoFramesReceivedTotal = counter(
    "netquality_peer_video_frames_received_total", labels: ["peer", "direction"],
    "Video frames (packets sharing an RTP timestamp) of which a packet reached the capture "
      + "point, per direction (webrtc-stats framesReceived).")
  public static let peerVideoFramesIncompleteTotal = counter(
    "netquality_peer_video_frames_incomplete_total", labels: ["peer", "direction"],
    "Video frames with a packet missing when the next frame began.")
  public static let peerVideoFramesPerSecond = gauge(
    "netquality_peer_video_frames_per_second", labels: ["peer", "direction"],
    "Video frames received in the last tick over its length.")
  public static let peerVideoFreezesTotal = counter(
    "netquality_peer_video_freezes_total", labels: ["peer", "direction"],
    "Video freezes: a frame interval of at least max(3 x average, average + 150 ms) "
      + "(webrtc-stats freezeCount, at the capture point).")
  public static let peerVideoFreezeSecondsTotal = counter(
    "netquality_peer_video_freeze_seconds_total", labels: ["peer", "direction"],
    "Duration of the video freezes (webrtc-stats totalFreezesDuration).")
  public static let peerVideoPausesTotal = counter(
    "netquality_peer_video_pauses_total", labels: ["peer", "direction"],
    "Video pauses: more than 5 s without a frame (webrtc-stats pauseCount).")
  public static let peerVideoPauseSecondsTotal = counter(
    "netquality_peer_video_pause_seconds_total", labels: ["peer", "direction"],
    "Duration of the video pauses (webrtc-stats totalPausesDuration).")
  public static let peerVideoKeyFramesTotal = counter(
    "netquality_peer_video_key_frames_total", labels: ["peer", "direction"],
    "Video key frames, where SDP names the format and the payload is in the clear.")
  public static let peerAudioConcealedSecondsTotal = counter(
    "netquality_peer_audio_concealed_seconds_total", labels: ["peer", "direction"],
    "Estimated audio concealment: the media time of lost packets (DTX silence excluded).")
  public static let peerAudioConcealmentEventsTotal = counter(
    "netquality_peer_audio_concealment_events_total", labels: ["peer", "direction"],
    "Estimated audio concealment events: runs of lost packets.")
  public static let peerRTCPFeedbackTotal = counter(
    "netquality_peer_rtcp_feedback_total", labels: ["peer", "direction", "type"],
    "RTCP feedback messages about the direction's media (rx: sent to the peer, tx: from it): "
      + "nack, pli, fir, remb, transport_cc.")
  public static let peerNACKedPacketsTotal = counter(
    "netquality_peer_nacked_packets_total", labels: ["peer", "direction"],
    "Packets the generic NACKs asked for (plain RTCP only).")
  public static let videoFramesReceivedTotal = counter(
    "netquality_video_frames_received_total", labels: ["direction"],
    "Video frames received over every peer.")
  public static let videoFreezesTotal = counter(
    "netquality_video_freezes_total", labels: ["direction"], "Video freezes over every peer.")
  public static let videoFreezeSecondsTotal = counter(
    "netquality_video_freeze_seconds_total", labels: ["direction"],
    "Duration of the video freezes over every peer.")
  public static let videoPausesTotal = counter(
    "netquality_video_pauses_total", labels: ["direction"], "Video pauses over every peer.")
  public static let audioConcealedSecondsTotal = counter(
    "netquality_audio_concealed_seconds_total", labels: ["direction"],
    "Estimated audio concealment over every peer.")
  public static let rtcpFeedbackTotal = counter(
    "netquality_rtcp_feedback_total", labels: ["direction", "type"],
    "RTCP feedback messages over every peer, by type.")
}
