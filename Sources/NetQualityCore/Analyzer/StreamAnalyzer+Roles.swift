/// Stream roles: media, or repairs of another stream (see `StreamRole`, `RepairCheck`).
extension StreamAnalyzer {
  func signalledFormat(_ payloadType: UInt8, key: StreamKey) -> SessionDescription.PayloadFormat? {
    signalled(key)?.payloadFormats[payloadType]
  }

  /// The SDP media of a stream: what its receiver, or else its sender, signalled.
  ///
  /// Inlined: called from the analyser's mutating methods (per packet, per stream and
  /// harvest), a call copied the whole analyser (2.5 KB) into a temporary (Swift passes a
  /// struct this large by address; perf, issue 37).
  @inline(__always)
  func signalled(_ key: StreamKey) -> SessionDescription.Media? {
    guard !signalledMedia.isEmpty else { return nil }
    return (signalledMedia[key.destination] ?? signalledMedia[key.source])?.media
  }

  /// One of a new stream's first packets against its siblings (see `RepairCheck`).
  mutating func checkRole(_ index: Int, timestamp: UInt32) {
    let key = streams[index].key
    var check = streams[index].repair
    var matched: Int32 = -1
    var lag: Int64 = 0
    // The sibling it repairs: of the media streams on its flow whose timestamps it follows,
    // the first one seen (the earliest start; the lower index between equals).
    let flow = FlowKey(key)
    var matchedStart = Int64.max
    var ahead = false
    for other in streamsByFlow.candidates(tag: flow.tableTag)
    where other != index && FlowKey(streams[other].key) == flow {
      guard streams[other].role == .media, streams[other].packets > 0 else { continue }
      let start = streams[other].firstArrivalNanoseconds
      guard matched < 0 || (start, other) < (matchedStart, Int(matched)) else { continue }
      let rate = streams[other].reportedClock.rateHz
      let window = RepairCheck.lookBackSeconds * (rate > 0 ? rate : RepairCheck.defaultClockHz)
      let behind = RepairCheck.lag(of: timestamp, behind: streams[other].highestTimestamp)
      if behind >= 0 && Double(behind) <= window {
        matched = Int32(other)
        matchedStart = start
        lag = behind
      } else if behind < 0 && Double(-behind) <= window {
        ahead = true
      }
    }
    if matched < 0 && !ahead
      || (matched >= 0 && check.repairedIndex >= 0 && check.repairedIndex != matched)
    {
      // Follows no sibling, or another one than before: media for good.
      check.packetsChecked = RepairCheck.packetsToDecide
      check.repairedIndex = -1
      streams[index].role = .media
    } else {
      if matched >= 0 {
        check.repairedIndex = matched
        check.repairedSSRC = streams[Int(matched)].key.ssrc
      }
      if matched >= 0 && lag > 0 {
        check.sawOlderTimestamp = true
        check.packetsChecked += 1
      } else {
        // At the sibling's pace, or ahead of it (RepairCheck): no evidence either way.
        check.packetsAtPace &+= check.packetsAtPace < .max ? 1 : 0
      }
      if check.isDecided {
        streams[index].role =
          check.repairedIndex >= 0 && check.sawOlderTimestamp ? .retransmission : .media
      } else if check.repairedIndex >= 0 {
        streams[index].role = .retransmission
      }
    }
    streams[index].repair = check
  }
}
