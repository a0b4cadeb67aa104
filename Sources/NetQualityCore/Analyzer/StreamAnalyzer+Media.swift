/// Media experience on the analyser's one per-packet path (see `Media/`): video frames and
/// freezes of video streams, the concealment estimate of audio streams, and the RTCP feedback
/// between each pair of addresses. A stream's media state lives in a slot of its own
/// (`RTPStream.mediaSlot`), taken at its first media packet (`settleMediaSlot`); repair
/// streams, events and comfort noise have none.
extension StreamAnalyzer {
  /// After `RTPStream.record` counted a packet (in order or late, not a duplicate), once the
  /// packet's role and clock are settled.
  @inline(__always)
  mutating func recordMedia(
    _ index: Int, header: RTPHeader, payload: UnsafeRawBufferPointer, inOrder: Bool,
    arrivalNanoseconds: Int64
  ) {
    switch streams[index].role {
    case .media: break
    case .retransmission:
      if !streams[index].mediaSlot.isNone { releaseMedia(ofStream: index) }
      let repaired = streams[index].repair.repairedIndex
      guard repaired >= 0, streams[Int(repaired)].mediaSlot.isVideo else { return }
      // A padding packet (a bandwidth probe) repairs nothing.
      guard !header.padded else { return }
      videoMedia[streams[Int(repaired)].mediaSlot.storeIndex].noteRetransmission(
        timestamp: header.timestamp, arrivalNanoseconds: arrivalNanoseconds)
      return
    case .fec:
      if !streams[index].mediaSlot.isNone { releaseMedia(ofStream: index) }
      return
    }
    // Padding only (RFC 3550 section 5.1, P bit): bandwidth probes carry no media.
    guard header.payloadLength > 0 else { return }
    var slot = streams[index].mediaSlot
    if slot.isNone || (slot.isVideo && streams[index].reportedClock.rateHz != 90_000) {
      // A first packet, or a stream taken for video before its clock was known.
      guard let settled = settleMediaSlot(index) else { return }
      slot = settled
    }
    if slot.isVideo {
      let captured = max(0, min(header.payloadLength, payload.count - header.headerLength))
      videoMedia[slot.storeIndex].record(
        sequence: header.sequenceNumber, timestamp: header.timestamp, marker: header.marker,
        inOrder: inOrder, arrivalNanoseconds: arrivalNanoseconds,
        payload: payload.window(from: min(header.headerLength, payload.count), count: captured))
    } else if inOrder {
      audioMedia[slot.storeIndex].record(
        sequence: header.sequenceNumber, timestamp: header.timestamp, marker: header.marker)
    }
  }

  /// The media slot a media stream should have now: video for a 90 kHz clock or SDP
  /// `m=video`, and for a dynamic payload type whose clock is still being inferred (frames
  /// are counted from the first packet; the slot turns to audio if the clock says so); audio
  /// for any other known clock but RFC 4733 events and comfort noise; none otherwise.
  mutating func settleMediaSlot(_ index: Int) -> MediaSlot? {
    let current = streams[index].mediaSlot
    let clock =
      streams[index].reportedClock.source != .unknown
      ? streams[index].reportedClock : streams[index].currentClock
    let payloadType = streams[index].currentPayloadType
    let wantsVideo: Bool
    if clock.rateHz > 0 {
      guard !clock.isEvent, !StaticPayloadTypes.isComfortNoise(payloadType) else {
        return current.isNone ? nil : current
      }
      // The stream's fields read first, then asked of `self`: an argument read from `self`
      // while the call borrows it made Swift copy the whole analyser (2.5 KB and a retain of
      // each of its references) for the call (the same below).
      let (key, reported) = (streams[index].key, streams[index].reportedClock)
      wantsVideo = isVideo(key, clock: reported)
    } else {
      // A dynamic payload type whose clock is being inferred: counted as video meanwhile.
      guard payloadType >= 96, streams[index].inferenceState == .collecting else {
        return current.isNone ? nil : current
      }
      wantsVideo = true
    }
    if wantsVideo {
      if current.isVideo { return current }
      releaseMedia(ofStream: index)
      let slot = videoMedia.take()
      let format = videoFormat(ofStream: index)
      videoMedia[slot].format = format
      streams[index].mediaSlot = .video(slot)
    } else {
      if current.isAudio { return current }
      releaseMedia(ofStream: index)
      streams[index].mediaSlot = .audio(audioMedia.take())
    }
    return streams[index].mediaSlot
  }

  /// The video payload format SDP gives the stream's current payload type.
  func videoFormat(ofStream index: Int) -> VideoPayloadFormat {
    let (payloadType, key) = (streams[index].currentPayloadType, streams[index].key)
    guard let format = signalledFormat(payloadType, key: key) else {
      return .unknown
    }
    return VideoPayloadFormat(encodingName: format.encodingName)
  }

  /// A stream's payload type changed (or new SDP came): its video format follows.
  mutating func refreshVideoFormat(_ index: Int) {
    let slot = streams[index].mediaSlot
    guard slot.isVideo else { return }
    let format = videoFormat(ofStream: index)
    videoMedia[slot.storeIndex].format = format
  }

  /// The stream's media experience so far (nil: none tracked, or a stream counted as video
  /// while its clock is inferred that never turned out video: its kind is not guessed).
  /// Inlined, as `isVideo(_:clock:)` is (a call copied the whole analyser, twice a stream and
  /// harvest).
  @inline(__always)
  func mediaCounts(ofStream index: Int) -> MediaCounts? {
    let slot = streams[index].mediaSlot
    if slot.isVideo {
      let (key, reported) = (streams[index].key, streams[index].reportedClock)
      return isVideo(key, clock: reported) ? videoMedia[slot.storeIndex].counts : nil
    }
    if slot.isAudio {
      return audioMedia[slot.storeIndex].concealment.counts(
        secondsPerTick: streams[index].reportedClock.secondsPerTick)
    }
    return nil
  }

  /// Gives back the media slot of a stream being forgotten.
  mutating func releaseMedia(ofStream index: Int) {
    let slot = streams[index].mediaSlot
    if slot.isVideo { videoMedia.release(slot.storeIndex) }
    if slot.isAudio { audioMedia.release(slot.storeIndex) }
    streams[index].mediaSlot = .none
  }

  /// RTCP feedback sent from the datagram's source to its destination (a read and a store,
  /// not an in-place dictionary update: see `recordRTCP`).
  mutating func recordFeedback(_ message: RTCPFeedback) {
    let pair = AddressPair(
      source: rtcpContext.source.address, destination: rtcpContext.destination.address)
    var counts = feedbackByPair[pair] ?? FeedbackCounts()
    counts.record(message, at: CaptureTime(nanosecondsSinceEpoch: rtcpContext.arrivalNanoseconds))
    feedbackByPair[pair] = counts
  }

  /// An SRTCP datagram's first header (RFC 3711 section 3.4: in the clear).
  mutating func recordEncryptedFeedback(
    _ payload: UnsafeRawBufferPointer, datagram: UDPDatagram, at time: CaptureTime
  ) {
    let type = payload.byte(at: 1)
    guard type == RTCPCompound.transportFeedback || type == RTCPCompound.payloadFeedback else {
      return
    }
    let pair = AddressPair(source: datagram.sourceAddress, destination: datagram.destinationAddress)
    var counts = feedbackByPair[pair] ?? FeedbackCounts()
    counts.recordEncrypted(type: type, format: payload.byte(at: 0) & 0x1F, at: time)
    feedbackByPair[pair] = counts
  }

  /// Forgets the feedback of pairs silent since `cutoff`.
  mutating func forgetFeedback(silentSince cutoff: CaptureTime) {
    feedbackByPair.removeValues { $0.lastTime < cutoff }
  }
}

/// An audio stream's media state.
struct AudioMediaTracker: Sendable {
  var concealment = AudioConcealment()

  @inline(__always)
  mutating func record(sequence: UInt16, timestamp: UInt32, marker: Bool) {
    concealment.record(sequence: sequence, timestamp: timestamp, marker: marker)
  }
}

/// Where a stream's media state is: none, a video slot or an audio slot, in one `Int32` of the
/// stream's record (-1 none, 0... video, ...-2 audio).
struct MediaSlot: Equatable, Sendable {
  var rawValue: Int32

  static let none = MediaSlot(rawValue: -1)
  static func video(_ slot: Int32) -> MediaSlot { MediaSlot(rawValue: slot) }
  static func audio(_ slot: Int32) -> MediaSlot { MediaSlot(rawValue: -2 - slot) }

  var isVideo: Bool { rawValue >= 0 }
  var isAudio: Bool { rawValue <= -2 }
  var isNone: Bool { rawValue == -1 }
  /// The slot in its store.
  var storeIndex: Int32 { rawValue >= 0 ? rawValue : -2 - rawValue }
}
