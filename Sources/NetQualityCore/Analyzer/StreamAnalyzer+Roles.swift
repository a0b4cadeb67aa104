/// Stream roles: media, or repairs of another stream (see `StreamRole`, `RepairCheck`).
extension StreamAnalyzer {
  func signalledFormat(_ payloadType: UInt8, key: StreamKey) -> SessionDescription.PayloadFormat? {
    signalled(key)?.payloadFormats[payloadType]
  }

  /// The SDP media of a stream: what its receiver, or else its sender, signalled.
  func signalled(_ key: StreamKey) -> SessionDescription.Media? {
    guard !signalledMedia.isEmpty else { return nil }
    return (signalledMedia[key.destination] ?? signalledMedia[key.source])?.media
  }

  /// One of a new stream's first packets against its siblings (see `RepairCheck`).
  mutating func checkRole(_ index: Int, timestamp: UInt32) {
    let key = streams[index].key
    var check = streams[index].repair
    check.packetsChecked += 1
    var matched: Int32 = -1
    var lag: Int64 = 0
    if let siblings = flows[FlowKey(key)]?.indices {
      for sibling in siblings where Int(sibling) != index {
        let other = Int(sibling)
        guard streams[other].role == .media, streams[other].packets > 0 else { continue }
        let rate = streams[other].reportedClock.rateHz
        let window = RepairCheck.lookBackSeconds * (rate > 0 ? rate : RepairCheck.defaultClockHz)
        let behind = RepairCheck.lag(of: timestamp, behind: streams[other].highestTimestamp)
        if behind >= 0 && Double(behind) <= window {
          matched = sibling
          lag = behind
          break
        }
      }
    }
    if matched < 0 || (check.repairedIndex >= 0 && check.repairedIndex != matched) {
      check.packetsChecked = RepairCheck.packetsToDecide
      check.repairedIndex = -1
      streams[index].role = .media
    } else {
      check.repairedIndex = matched
      if lag > 0 { check.sawOlderTimestamp = true }
      check.repairedSSRC = streams[Int(matched)].key.ssrc
      streams[index].role =
        check.isDecided && !check.sawOlderTimestamp ? .media : .retransmission
    }
    streams[index].repair = check
  }
}
