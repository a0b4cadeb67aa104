import NetQualityCore

/// libFuzzer entry point: the input is a link type selector and a sequence of frames, each
/// preceded by a 2-byte length, fed through the whole engine (decode, classification, stream
/// and RTCP state) with advancing capture times, then reported.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: data, count: size)
  guard input.count >= 1 else { return 0 }
  let linkTypes: [LinkType] = [
    .ethernet, .linuxCooked, .linuxCookedV2, .null, .loop, .raw, .ipv4, .ipv6,
  ]
  let linkType = linkTypes[Int(input[0]) % linkTypes.count]
  var analyzer = StreamAnalyzer(configuration: .init(maxStreams: 64))
  var offset = 1
  var time: Int64 = 1_700_000_000_000_000_000
  while offset + 2 <= input.count {
    let length = Int(input[offset]) << 8 | Int(input[offset + 1])
    offset += 2
    let available = min(length, input.count - offset)
    let frame = UnsafeRawBufferPointer(rebasing: input[offset..<(offset + available)])
    // The original length may claim more than was captured, as a snap length would.
    analyzer.ingest(
      frame: frame, originalLength: length, linkType: linkType,
      at: CaptureTime(nanosecondsSinceEpoch: time))
    offset += available
    time += Int64(length % 50) * 1_000_000
  }
  let report = analyzer.report()
  // Use every derived figure: an optimised build would otherwise drop the whole analysis as
  // dead code, leaving nothing for the fuzzer to explore.
  var checksum =
    report.capture.frames &+ report.capture.nonRTPUDP &+ report.capture.decodeErrorTotal
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
