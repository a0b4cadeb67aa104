import NetQualityCore

/// Builds RTCP packets (RFC 3550 section 6.4-6.6, RFC 4585, RFC 3611) for tests and generated
/// captures. Concatenate the results for a compound packet.
public enum RTCPBuilder {
  public static func senderReport(
    ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32,
    octetCount: UInt32, blocks: [RTCPReportBlock] = []
  ) -> [UInt8] {
    var body: [UInt8] = []
    body.appendBigEndian(ssrc)
    body.appendBigEndian(ntpTimestamp)
    body.appendBigEndian(rtpTimestamp)
    body.appendBigEndian(packetCount)
    body.appendBigEndian(octetCount)
    for block in blocks { body.append(contentsOf: encode(block)) }
    return packet(type: RTCPCompound.senderReport, count: blocks.count, body: body)
  }

  public static func receiverReport(ssrc: UInt32, blocks: [RTCPReportBlock]) -> [UInt8] {
    var body: [UInt8] = []
    body.appendBigEndian(ssrc)
    for block in blocks { body.append(contentsOf: encode(block)) }
    return packet(type: RTCPCompound.receiverReport, count: blocks.count, body: body)
  }

  public static func sourceDescription(ssrc: UInt32, canonicalName: String) -> [UInt8] {
    var body: [UInt8] = []
    body.appendBigEndian(ssrc)
    body.append(1)
    body.append(UInt8(canonicalName.utf8.count))
    body.append(contentsOf: canonicalName.utf8)
    body.append(0)
    while body.count % 4 != 0 { body.append(0) }
    return packet(type: RTCPCompound.sourceDescription, count: 1, body: body)
  }

  public static func goodbye(ssrc: UInt32) -> [UInt8] {
    var body: [UInt8] = []
    body.appendBigEndian(ssrc)
    return packet(type: RTCPCompound.bye, count: 1, body: body)
  }

  public static func genericNACK(sender: UInt32, media: UInt32, packetID: UInt16, bitmask: UInt16)
    -> [UInt8]
  {
    var body: [UInt8] = []
    body.appendBigEndian(sender)
    body.appendBigEndian(media)
    body.appendBigEndian(packetID)
    body.appendBigEndian(bitmask)
    return packet(type: RTCPCompound.transportFeedback, count: 1, body: body)
  }

  public static func pictureLossIndication(sender: UInt32, media: UInt32) -> [UInt8] {
    var body: [UInt8] = []
    body.appendBigEndian(sender)
    body.appendBigEndian(media)
    return packet(type: RTCPCompound.payloadFeedback, count: 1, body: body)
  }

  public static func voipMetrics(
    reporter: UInt32, source: UInt32, lossRate: UInt8, mosLQ: UInt8, roundTripMilliseconds: UInt16
  ) -> [UInt8] {
    var body: [UInt8] = []
    body.appendBigEndian(reporter)
    body.append(7)
    body.append(0)
    body.appendBigEndian(UInt16(8))
    body.appendBigEndian(source)
    body.append(contentsOf: [lossRate, 0, 0, 0])
    body.append(contentsOf: [0, 0, 0, 0])
    body.appendBigEndian(roundTripMilliseconds)
    body.appendBigEndian(UInt16(0))
    body.append(contentsOf: [127, 127, 127, 16, 127, 127, mosLQ, 127, 0, 0])
    body.appendBigEndian(UInt16(40))
    body.appendBigEndian(UInt16(80))
    body.appendBigEndian(UInt16(200))
    return packet(type: RTCPCompound.extendedReport, count: 0, body: body)
  }

  /// The common header: V=2, count, type, length in 32-bit words minus one.
  public static func packet(type: UInt8, count: Int, body: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0x80 | UInt8(count & 0x1F), type]
    bytes.appendBigEndian(UInt16((body.count + 4) / 4 - 1))
    bytes.append(contentsOf: body)
    return bytes
  }

  static func encode(_ block: RTCPReportBlock) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendBigEndian(block.sourceSSRC)
    bytes.appendBigEndian(
      UInt32(block.fractionLost) << 24 | UInt32(bitPattern: block.cumulativeLost) & 0xFF_FFFF)
    bytes.appendBigEndian(block.extendedHighestSequence)
    bytes.appendBigEndian(block.jitter)
    bytes.appendBigEndian(block.lastSR)
    bytes.appendBigEndian(block.delaySinceLastSR)
    return bytes
  }
}
