import NetQualityCore

/// libFuzzer entry point. The input is a selector byte and a sequence of frames, each preceded
/// by a 2-byte length (and, in the stamped mode, an 8-byte capture time), fed through the
/// whole engine as a capture replay: decode, classification, stream and RTCP state, the
/// capture clock, ticks on a schedule (scoring, connection states, alerts, forgetting, idle
/// silences skipped), then the stream report.
///
/// Selector bits 0-2: the link type. Bit 3: stamped mode, where every frame carries its own
/// 8-byte big-endian capture time (any 64-bit value: the epoch, the end of time, years back);
/// otherwise times advance by the frame length modulo 50 ms from late 2023. Bits 4-6: the
/// tick interval. Seeds made by scripts/pcap-to-corpus.py use steady time and 2 s ticks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: data, count: size)
  guard input.count >= 1 else { return 0 }
  let linkTypes: [LinkType] = [
    .ethernet, .linuxCooked, .linuxCookedV2, .null, .loop, .raw, .ipv4, .ipv6,
  ]
  let selector = Int(input[0])
  let linkType = linkTypes[selector & 7]
  let stamped = selector & 8 != 0
  let intervals = [2.0, 0.1, 0.001, 1, 5, 60, 3600, 86_400]
  var schedule = TickSchedule(intervalSeconds: intervals[(selector >> 4) & 7])

  var configuration = EngineConfiguration()
  configuration.analyzer.maxStreams = 64
  // Half of each address space is local, so most streams have a peer and a direction.
  configuration.localNetworks = ["0.0.0.0/1", "::/1"].compactMap { NetworkPrefix($0) }
  configuration.peerGroups = [("fuzz-group", ["192.168.0.0/16"].compactMap { NetworkPrefix($0) })]
  var engine = Engine(configuration: configuration)
  var checksum: Int64 = 0
  func taste(_ result: Engine.TickResult) {
    checksum &+= Int64(result.snapshot.peers.count &+ result.events.count)
    for peer in result.snapshot.peers {
      checksum &+= Int64(peer.rx.level.rawValue &+ peer.tx.level.rawValue) &+ peer.rxLost
      checksum &+= Int64((peer.rx.meanOpinionScore ?? 0).bitPattern & 0xFF)
    }
  }

  var offset = 1
  var time: Int64 = 1_700_000_000_000_000_000
  while offset + (stamped ? 10 : 2) <= input.count {
    if stamped {
      time = 0
      for index in 0..<8 { time = time << 8 | Int64(input[offset + index]) }
      offset += 8
    }
    let length = Int(input[offset]) << 8 | Int(input[offset + 1])
    offset += 2
    let available = min(length, input.count - offset)
    let frame = UnsafeRawBufferPointer(rebasing: input[offset..<(offset + available)])
    // The original length may claim more than was captured, as a snap length would.
    engine.replay(
      frame: frame, originalLength: length, linkType: linkType,
      at: CaptureTime(nanosecondsSinceEpoch: time), schedule: &schedule, onTick: taste,
      onSkip: { checksum &+= $0.count })
    offset += available
    if !stamped { time += Int64(length % 50) * 1_000_000 }
  }
  engine.finishReplay(schedule: &schedule, onTick: taste)
  let report = engine.analyzer.report()
  // Use every derived figure: an optimised build would otherwise drop the whole analysis as
  // dead code, leaving nothing for the fuzzer to explore.
  checksum &+=
    report.capture.frames &+ report.capture.nonRTPUDP &+ report.capture.decodeErrorTotal
    &+ report.capture.clockSteps
  for stream in report.streams {
    checksum &+= stream.lost &+ stream.duplicates &+ Int64(stream.key.description.utf8.count)
    checksum &+= Int64((stream.lossFraction + (stream.payloadBitsPerSecond ?? 0)).bitPattern & 0xFF)
    checksum &+= Int64((stream.maxJitterSeconds ?? 0).bitPattern & 0xFF)
  }
  keep(checksum)
  return 0
}

/// Never inlined nor optimised: the value escapes, so the work that made it is kept.
@inline(never)
@_optimize(none)
func keep(_ value: Int64) {
  _ = value
}
