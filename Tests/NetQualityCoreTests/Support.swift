import NetQualityCore
import NetQualitySynth

/// Small helpers for building traffic and feeding it to the engine.
enum Net {
  static func endpoint(_ text: String, _ port: UInt16) -> Endpoint {
    guard let address = IPAddress(text) else { preconditionFailure("bad test address \(text)") }
    return Endpoint(address: address, port: port)
  }

  static let alice = endpoint("192.0.2.10", 40_000)
  static let bob = endpoint("198.51.100.20", 50_000)
  static let aliceRTCP = endpoint("192.0.2.10", 40_001)
  static let bobRTCP = endpoint("198.51.100.20", 50_001)

  static func time(_ milliseconds: Double) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_700_000_000_000_000_000 + Int64(milliseconds * 1e6))
  }
}

extension StreamAnalyzer {
  mutating func feed(
    _ frame: [UInt8], at time: CaptureTime, linkType: LinkType = .ethernet,
    originalLength: Int? = nil
  ) {
    frame.withUnsafeBytes { bytes in
      ingest(
        frame: bytes, originalLength: originalLength ?? bytes.count, linkType: linkType, at: time)
    }
  }

  /// `count` G.711 packets of 20 ms from `source` to `destination`.
  mutating func feedAudio(
    from source: Endpoint = Net.alice, to destination: Endpoint = Net.bob, ssrc: UInt32 = 0x1111,
    payloadType: UInt8 = 0, count: Int, startMilliseconds: Double = 0, firstSequence: Int = 1000,
    clockRate: Double = 8000, skip: Set<Int> = [], jitterMilliseconds: (Int) -> Double = { _ in 0 }
  ) {
    let samplesPerPacket = clockRate * 0.02
    for index in 0..<count where !skip.contains(index) {
      let rtp = PacketBuilder.rtp(
        payloadType: payloadType, sequenceNumber: UInt16(truncatingIfNeeded: firstSequence + index),
        timestamp: UInt32(truncatingIfNeeded: Int(Double(index) * samplesPerPacket)), ssrc: ssrc)
      feed(
        PacketBuilder.frame(source: source, destination: destination, payload: rtp),
        at: Net.time(startMilliseconds + Double(index) * 20 + jitterMilliseconds(index)))
    }
  }

  /// The SIP INVITE of `SessionDescriptionTests`: Opus (111) and telephone events (101) to be
  /// received at 192.0.2.10:40000.
  mutating func feedInvite() {
    let invite = Array(SessionDescriptionTests.invite.utf8)
    feed(
      PacketBuilder.frame(
        source: Net.endpoint("192.0.2.10", 5060), destination: Net.endpoint("192.0.2.20", 5060),
        payload: invite), at: Net.time(0))
  }

  func stream(_ ssrc: UInt32) -> StreamReport? {
    report().streams.first { $0.key.ssrc == ssrc }
  }
}
