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
  // Touch every derived figure so their arithmetic runs too.
  for stream in report.streams {
    _ = stream.lossFraction
    _ = stream.payloadBitsPerSecond
    _ = stream.reportedJitterSeconds
    _ = stream.key.description
  }
  return 0
}
