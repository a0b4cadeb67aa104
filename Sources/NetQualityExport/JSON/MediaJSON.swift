import NetQualityCore

/// The JSON of media experience (docs/media.md): per peer and direction in the timeline and
/// the API, per stream in `/api/v1/streams`. Compact, since every peer of every tick carries
/// it: a direction has a `video`, `audio` and `feedback` object only when it has that media,
/// and a peer with nothing to show has `"media": null`.
public enum MediaJSON {
  /// `{"rx": {...}, "tx": {...}}` of a peer, or null when neither direction has video,
  /// feedback or an audio figure above zero.
  public static func peer(_ media: PeerMedia?) -> JSONValue {
    guard let media, shows(media.rx) || shows(media.tx) else { return .null }
    return .object([("rx", direction(media.rx)), ("tx", direction(media.tx))])
  }

  /// Whether a direction has something to show: video, feedback, or audio that was concealed
  /// or silent (an audio call without loss or DTX has nothing to add to its levels).
  static func shows(_ direction: DirectionMedia) -> Bool {
    direction.videoStreams > 0 || !direction.feedbackTotal.isEmpty
      || (direction.audioStreams > 0
        && (direction.total.concealmentEvents > 0 || direction.total.silenceSeconds > 0))
  }

  static func direction(_ direction: DirectionMedia) -> JSONValue {
    var fields: [(String, JSONValue)] = []
    if direction.videoStreams > 0 {
      fields.append(
        (
          "video",
          .object(
            [
              ("streams", .integer(Int64(direction.videoStreams))),
              ("frames_per_second", .optional(direction.framesPerSecond)),
            ] + video(direction.window) + [("total", .object(video(direction.total)))])
        ))
    }
    if direction.audioStreams > 0 {
      fields.append(
        (
          "audio",
          .object(
            [("streams", .integer(Int64(direction.audioStreams)))] + audio(direction.window)
              + [("total", .object(audio(direction.total)))])
        ))
    }
    if !direction.feedbackTotal.isEmpty {
      fields.append(
        (
          "feedback",
          .object(
            feedback(direction.feedbackWindow) + [
              ("total", .object(feedback(direction.feedbackTotal)))
            ])
        ))
    }
    return .object(fields)
  }

  /// A stream's media at a tick: its window's figures and its totals.
  public static func stream(_ stream: StreamMediaSnapshot) -> JSONValue {
    let figures = stream.isVideo ? video : audio
    return .object(
      [
        ("kind", .string(stream.isVideo ? "video" : "audio")),
        ("frames_per_second", .optional(stream.framesPerSecond)),
      ] + figures(stream.window) + [("total", .object(figures(stream.total)))])
  }

  /// Video figures under the names webrtc-stats gives their counterparts (snake case,
  /// durations in seconds).
  public static func video(_ counts: MediaCounts) -> [(String, JSONValue)] {
    [
      ("frames_received", .integer(counts.framesReceived)),
      ("frames_incomplete", .integer(counts.framesIncomplete)),
      ("frames_retransmitted_only", .integer(counts.framesRetransmitted)),
      ("key_frames", .integer(counts.keyFrames)),
      ("frame_width", counts.frameWidth > 0 ? .integer(Int64(counts.frameWidth)) : .null),
      ("frame_height", counts.frameHeight > 0 ? .integer(Int64(counts.frameHeight)) : .null),
      ("total_inter_frame_delay_s", .number(counts.totalInterFrameDelaySeconds)),
      ("total_squared_inter_frame_delay_s2", .number(counts.totalSquaredInterFrameDelaySeconds)),
      ("inter_frame_intervals", .integer(counts.interFrameIntervals)),
      ("freeze_count", .integer(counts.freezes)),
      ("total_freezes_duration_s", .number(counts.freezesSeconds)),
      ("pause_count", .integer(counts.pauses)),
      ("total_pauses_duration_s", .number(counts.pausesSeconds)),
    ]
  }

  /// The audio concealment estimate.
  public static func audio(_ counts: MediaCounts) -> [(String, JSONValue)] {
    [
      ("concealed_s", .number(counts.concealedSeconds)),
      ("concealment_events", .integer(counts.concealmentEvents)),
      ("silence_s", .number(counts.silenceSeconds)),
    ]
  }

  public static func feedback(_ counts: FeedbackCounts) -> [(String, JSONValue)] {
    [
      ("nack_count", .integer(counts.nackMessages)),
      ("nacked_packets", .integer(counts.nackedPackets)),
      ("pli_count", .integer(counts.pictureLossIndications)),
      ("fir_count", .integer(counts.fullIntraRequests)),
      ("remb_count", .integer(counts.estimateMessages)),
      ("remb_bps", .optional(counts.lastEstimateBitsPerSecond)),
      ("transport_cc_count", .integer(counts.transportFeedbackMessages)),
      ("encrypted_count", .integer(counts.encryptedMessages)),
    ]
  }
}
