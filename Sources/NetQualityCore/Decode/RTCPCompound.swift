/// Receives the parts of an RTCP compound packet as the parser walks it, so parsing allocates
/// nothing. Every method has a default that ignores the part.
public protocol RTCPVisitor {
  mutating func senderInfo(_ info: RTCPSenderInfo)
  mutating func reportBlock(_ block: RTCPReportBlock)
  mutating func canonicalName(ssrc: UInt32, text: UnsafeRawBufferPointer)
  mutating func goodbye(ssrc: UInt32)
  mutating func application(ssrc: UInt32, name: UInt32)
  mutating func feedback(_ message: RTCPFeedback)
  mutating func voipMetrics(_ metrics: RTCPVoIPMetrics)
  /// Called once per packet in the compound with its packet type.
  mutating func packet(type: UInt8)
}

extension RTCPVisitor {
  public mutating func senderInfo(_ info: RTCPSenderInfo) {}
  public mutating func reportBlock(_ block: RTCPReportBlock) {}
  public mutating func canonicalName(ssrc: UInt32, text: UnsafeRawBufferPointer) {}
  public mutating func goodbye(ssrc: UInt32) {}
  public mutating func application(ssrc: UInt32, name: UInt32) {}
  public mutating func feedback(_ message: RTCPFeedback) {}
  public mutating func voipMetrics(_ metrics: RTCPVoIPMetrics) {}
  public mutating func packet(type: UInt8) {}
}

/// Walks RTCP compound packets (RFC 3550 section 6.1).
public enum RTCPCompound {
  // Packet types: RFC 3550 section 12.1, RFC 4585 section 6.1, RFC 3611 section 2.
  public static let senderReport: UInt8 = 200
  public static let receiverReport: UInt8 = 201
  public static let sourceDescription: UInt8 = 202
  public static let bye: UInt8 = 203
  public static let app: UInt8 = 204
  public static let transportFeedback: UInt8 = 205
  public static let payloadFeedback: UInt8 = 206
  public static let extendedReport: UInt8 = 207

  /// How the length fields of a datagram's RTCP packets fit the datagram.
  public enum Framing: Equatable, Sendable {
    /// Version 2 throughout and lengths that tile the datagram (RFC 3550 appendix A.2), up to
    /// `coveredBytes`; fewer than 4 stray bytes may follow, which some stacks append.
    case compound(coveredBytes: Int)
    /// A valid first header of a standard type (SR ... XR) whose packets do not tile the
    /// datagram: SRTCP (RFC 3711 section 3.4) appends an index and an authentication tag and
    /// encrypts what follows the first 8 bytes. Only the first header can be trusted.
    case firstHeaderOnly
    /// Not RTCP as framed: the first length runs past the datagram, or the version is wrong.
    case invalid
  }

  public static func framing(_ bytes: UnsafeRawBufferPointer) -> Framing {
    guard bytes.count >= 8, bytes.byte(at: 0) >> 6 == 2,
      (Int(bytes.uint16BigEndian(at: 2)) + 1) * 4 <= bytes.count
    else { return .invalid }
    // Without tiling, only a standard first type is believable: other protocols (DNS ids
    // such as 0xB2D0) can look like a version-2 header with a type in 192...223.
    let notTiled: Framing =
      (senderReport...extendedReport).contains(bytes.byte(at: 1)) ? .firstHeaderOnly : .invalid
    var offset = 0
    while bytes.count - offset >= 4 {
      guard bytes.byte(at: offset) >> 6 == 2 else { return notTiled }
      let length = (Int(bytes.uint16BigEndian(at: offset + 2)) + 1) * 4
      guard offset + length <= bytes.count else { return notTiled }
      offset += length
    }
    return .compound(coveredBytes: offset)
  }

  /// Hands each part of a compound packet to `visitor`. Returns false, and visits nothing,
  /// unless the framing is `.compound`.
  @discardableResult
  public static func parse<Visitor: RTCPVisitor>(
    _ bytes: UnsafeRawBufferPointer, visitor: inout Visitor
  ) -> Bool {
    guard case .compound(let covered) = framing(bytes) else { return false }
    var offset = 0
    while offset < covered {
      let length = (Int(bytes.uint16BigEndian(at: offset + 2)) + 1) * 4
      var body = bytes.window(from: offset, count: length)
      let first = body.byte(at: 0)
      if first & 0x20 != 0 {
        // Padding (only valid on the last packet): the last octet counts the padding bytes.
        let padding = Int(body.byte(at: length - 1))
        if padding >= 1 && padding <= length - 4 {
          body = body.window(from: 0, count: length - padding)
        }
      }
      let count = Int(first & 0x1F)
      let type = body.byte(at: 1)
      visitor.packet(type: type)
      switch type {
      case senderReport, receiverReport:
        reports(body, type: type, count: count, visitor: &visitor)
      case sourceDescription:
        sourceDescriptions(body, count: count, visitor: &visitor)
      case bye:
        for index in 0..<count where 4 + index * 4 + 4 <= body.count {
          visitor.goodbye(ssrc: body.uint32BigEndian(at: 4 + index * 4))
        }
      case app where body.count >= 12:
        visitor.application(ssrc: body.uint32BigEndian(at: 4), name: body.uint32BigEndian(at: 8))
      case transportFeedback, payloadFeedback:
        feedback(body, type: type, format: UInt8(count), visitor: &visitor)
      case extendedReport:
        extendedReports(body, visitor: &visitor)
      default:
        break
      }
      offset += length
    }
    return true
  }

  private static func reports<Visitor: RTCPVisitor>(
    _ body: UnsafeRawBufferPointer, type: UInt8, count: Int, visitor: inout Visitor
  ) {
    guard body.count >= 8 else { return }
    let reporter = body.uint32BigEndian(at: 4)
    var offset = 8
    if type == senderReport {
      guard body.count >= 28 else { return }
      visitor.senderInfo(
        RTCPSenderInfo(
          ssrc: reporter,
          ntpTimestamp: body.uint64BigEndian(at: 8),
          rtpTimestamp: body.uint32BigEndian(at: 16),
          packetCount: body.uint32BigEndian(at: 20),
          octetCount: body.uint32BigEndian(at: 24)))
      offset = 28
    }
    for _ in 0..<count {
      guard offset + 24 <= body.count else { return }
      let lossWord = body.uint32BigEndian(at: offset + 4)
      // Sign-extend the 24-bit cumulative loss.
      let cumulative = Int32(bitPattern: lossWord << 8) >> 8
      visitor.reportBlock(
        RTCPReportBlock(
          reporterSSRC: reporter,
          sourceSSRC: body.uint32BigEndian(at: offset),
          fractionLost: UInt8(lossWord >> 24),
          cumulativeLost: cumulative,
          extendedHighestSequence: body.uint32BigEndian(at: offset + 8),
          jitter: body.uint32BigEndian(at: offset + 12),
          lastSR: body.uint32BigEndian(at: offset + 16),
          delaySinceLastSR: body.uint32BigEndian(at: offset + 20)))
      offset += 24
    }
  }

  /// RFC 3550 section 6.5: chunks of SSRC + items, each chunk ended by a null item and padded
  /// to a 32-bit boundary.
  private static func sourceDescriptions<Visitor: RTCPVisitor>(
    _ body: UnsafeRawBufferPointer, count: Int, visitor: inout Visitor
  ) {
    var offset = 4
    for _ in 0..<count {
      guard offset + 4 <= body.count else { return }
      let ssrc = body.uint32BigEndian(at: offset)
      offset += 4
      while offset < body.count {
        let itemType = body.byte(at: offset)
        if itemType == 0 {
          offset = (offset + 4) & ~3
          break
        }
        guard offset + 2 <= body.count else { return }
        let itemLength = Int(body.byte(at: offset + 1))
        guard offset + 2 + itemLength <= body.count else { return }
        if itemType == 1 {  // CNAME
          visitor.canonicalName(ssrc: ssrc, text: body.window(from: offset + 2, count: itemLength))
        }
        offset += 2 + itemLength
      }
    }
  }

  private static func feedback<Visitor: RTCPVisitor>(
    _ body: UnsafeRawBufferPointer, type: UInt8, format: UInt8, visitor: inout Visitor
  ) {
    guard body.count >= 12 else { return }
    let sender = body.uint32BigEndian(at: 4)
    var media = body.uint32BigEndian(at: 8)
    let fci = body.window(from: 12, count: body.count - 12)
    var kind = RTCPFeedback.Kind.other
    if type == transportFeedback && format == 1 {
      // RFC 4585 section 6.2.1: each FCI entry is PID(16) + BLP(16) and asks for 1 + popcount.
      var packets = 0
      var entry = 0
      while entry + 4 <= fci.count {
        packets += 1 + fci.uint16BigEndian(at: entry + 2).nonzeroBitCount
        entry += 4
      }
      kind = .nack(packets: packets)
    } else if type == transportFeedback && format == 15 {
      kind = .transportWide
    } else if type == payloadFeedback {
      switch format {
      case 1: kind = .pli
      case 4:
        kind = .fir
        // RFC 5104 section 4.3.1.2: the media SSRC field is unused; the target is in the FCI.
        if fci.count >= 8 { media = fci.uint32BigEndian(at: 0) }
      case 15 where fci.count >= 8 && fci.uint32BigEndian(at: 0) == 0x5245_4D42:  // "REMB"
        let word = fci.uint32BigEndian(at: 4)
        let exponent = UInt64(word >> 18 & 0x3F)
        let mantissa = Double(word & 0x3FFFF)
        kind = .remb(bitsPerSecond: mantissa * Double(UInt64(1) << exponent))
        if fci.count >= 12 && word >> 24 >= 1 { media = fci.uint32BigEndian(at: 8) }
      default: break
      }
    }
    visitor.feedback(RTCPFeedback(kind: kind, senderSSRC: sender, mediaSSRC: media))
  }

  /// RFC 3611 section 3: report blocks of BT(8) type-specific(8) length(16, in words).
  private static func extendedReports<Visitor: RTCPVisitor>(
    _ body: UnsafeRawBufferPointer, visitor: inout Visitor
  ) {
    guard body.count >= 8 else { return }
    let reporter = body.uint32BigEndian(at: 4)
    var offset = 8
    while offset + 4 <= body.count {
      let blockType = body.byte(at: offset)
      let length = (Int(body.uint16BigEndian(at: offset + 2)) + 1) * 4
      guard offset + length <= body.count else { return }
      if blockType == 7 && length >= 36 {
        let block = body.window(from: offset, count: length)
        visitor.voipMetrics(
          RTCPVoIPMetrics(
            reporterSSRC: reporter,
            sourceSSRC: block.uint32BigEndian(at: 4),
            lossRate: block.byte(at: 8),
            discardRate: block.byte(at: 9),
            burstDensity: block.byte(at: 10),
            gapDensity: block.byte(at: 11),
            burstDurationMilliseconds: block.uint16BigEndian(at: 12),
            gapDurationMilliseconds: block.uint16BigEndian(at: 14),
            roundTripDelayMilliseconds: block.uint16BigEndian(at: 16),
            endSystemDelayMilliseconds: block.uint16BigEndian(at: 18),
            signalLevel: Int8(bitPattern: block.byte(at: 20)),
            noiseLevel: Int8(bitPattern: block.byte(at: 21)),
            residualEchoReturnLoss: block.byte(at: 22),
            gmin: block.byte(at: 23),
            rFactor: block.byte(at: 24),
            externalRFactor: block.byte(at: 25),
            mosLQ: block.byte(at: 26),
            mosCQ: block.byte(at: 27),
            receiverConfiguration: block.byte(at: 28),
            jitterBufferNominalMilliseconds: block.uint16BigEndian(at: 30),
            jitterBufferMaximumMilliseconds: block.uint16BigEndian(at: 32),
            jitterBufferAbsoluteMaximumMilliseconds: block.uint16BigEndian(at: 34)))
      }
      offset += length
    }
  }
}
