import NetQualityCore

/// Generates a capture of many G.711 calls with chosen impairments: the project's sample for
/// `netquality analyze` and the benchmark's input. Deterministic for a seed.
public struct SyntheticTraffic: Sendable {
  public var streams: Int
  public var totalPackets: Int
  /// Percent of packets dropped, duplicated, delivered one slot late.
  public var lossPercent: Double
  public var duplicatePercent: Double
  public var reorderPercent: Double
  /// Arrival-time noise added to each packet, milliseconds (uniform 0..max).
  public var jitterMilliseconds: Double
  /// Emit an SR per stream and an RR about it every this many packets (0: no RTCP).
  public var rtcpEveryPackets: Int
  /// A network outage: nothing (RTP or RTCP) gets through from `start` for `seconds`.
  public var outage: (start: Double, seconds: Double)?
  /// Seconds at which every sender restarts its stream within the same SSRC, as SBCs and
  /// media relays do when they re-anchor media: sequence number and RTP timestamp jump to new
  /// bases (RFC 3550 A.1 re-synchronisation) while packets keep their 20 ms pace.
  public var restartSeconds: [Double] = []
  public var seed: UInt64
  /// Start of the capture.
  public var start: CaptureTime

  /// 20 ms packets of 160 bytes G.711 mu-law (PT 0), the RFC 3551 default packetisation.
  public static let packetInterval: Int64 = 20_000_000
  static let samplesPerPacket: UInt32 = 160

  public init(
    streams: Int, totalPackets: Int, lossPercent: Double = 0, duplicatePercent: Double = 0,
    reorderPercent: Double = 0, jitterMilliseconds: Double = 0, rtcpEveryPackets: Int = 250,
    seed: UInt64 = 1, start: CaptureTime = CaptureTime(seconds: 1_767_225_600, nanoseconds: 0)
  ) {
    self.streams = streams
    self.totalPackets = totalPackets
    self.lossPercent = lossPercent
    self.duplicatePercent = duplicatePercent
    self.reorderPercent = reorderPercent
    self.jitterMilliseconds = jitterMilliseconds
    self.rtcpEveryPackets = rtcpEveryPackets
    self.seed = seed
    self.start = start
  }

  /// Restarts before `slot`, and the sequence and timestamp shifts they add: each jumps the
  /// sequence by 20,011 (far beyond MAX_DROPOUT, RFC 3550 A.1) and the timestamp by about a
  /// quarter of its range, so neither reads as a gap.
  private func restartShift(slot: Int) -> (sequence: Int, timestamp: UInt32) {
    let second = Double(slot) * Double(Self.packetInterval) * 1e-9
    let restarts = restartSeconds.filter { $0 <= second }.count
    return (restarts * 20_011, UInt32(truncatingIfNeeded: restarts) &* 0x3A5F_1234)
  }

  private func inOutage(slot: Int) -> Bool {
    guard let outage else { return false }
    let second = Double(slot) * Double(Self.packetInterval) * 1e-9
    return second >= outage.start && second < outage.start + outage.seconds
  }

  /// Endpoints of stream `index`: calls between 10.10.x.y and 10.20.x.y (documentation-free
  /// private space; the generator never sends anything, it only writes a file).
  public static func endpoints(of index: Int) -> (source: Endpoint, destination: Endpoint) {
    let call = index / 2
    let a = Endpoint(
      address: IPAddress(ipv4: 10, 10, UInt8(call / 250 % 250), UInt8(call % 250 + 1)),
      port: UInt16(20_000 + (call % 10_000) * 2))
    let b = Endpoint(
      address: IPAddress(ipv4: 10, 20, UInt8(call / 250 % 250), UInt8(call % 250 + 1)),
      port: UInt16(40_000 + (call % 10_000) * 2))
    return index % 2 == 0 ? (a, b) : (b, a)
  }

  public static func ssrc(of index: Int) -> UInt32 { 0x5EED_0000 &+ UInt32(index) }

  /// Calls `emit` with each frame (Ethernet) and its capture time, in time order.
  public func generate(_ emit: (_ frame: [UInt8], _ time: CaptureTime) -> Void) {
    var random = SplitMix64(seed: seed)
    let streamCount = max(1, streams)
    let slots = (totalPackets + streamCount - 1) / streamCount
    let spacing = Self.packetInterval / Int64(streamCount)
    var heldBack = [(frame: [UInt8], sequence: Int)?](repeating: nil, count: streamCount)
    var lostSinceReport = [Int](repeating: 0, count: streamCount)
    var lostTotal = [Int](repeating: 0, count: streamCount)
    var emitted = 0
    for slot in 0..<slots {
      let slotStart = start.nanosecondsSinceEpoch + Int64(slot) * Self.packetInterval
      for stream in 0..<streamCount {
        guard emitted < totalPackets else { return }
        let (source, destination) = Self.endpoints(of: stream)
        let noise = Int64(Double(random.next() % 1000) / 1000 * jitterMilliseconds * 1e6)
        let time = CaptureTime(
          nanosecondsSinceEpoch: slotStart + Int64(stream) * spacing + min(noise, spacing - 1))
        let shift = restartShift(slot: slot)
        // Wraps early on purpose.
        let sequence = UInt16(truncatingIfNeeded: 0xFF00 + slot + shift.sequence)
        let rtp = PacketBuilder.rtp(
          payloadType: 0, sequenceNumber: sequence,
          timestamp: UInt32(truncatingIfNeeded: slot) &* Self.samplesPerPacket &+ 12_345
            &+ shift.timestamp,
          ssrc: Self.ssrc(of: stream))
        let frame = PacketBuilder.frame(source: source, destination: destination, payload: rtp)
        var toSend: [[UInt8]] = []
        if random.chance(percent: lossPercent) || inOutage(slot: slot) {
          // Dropped on the way: nothing to capture.
          lostSinceReport[stream] += 1
          lostTotal[stream] += 1
        } else if random.chance(percent: reorderPercent) && heldBack[stream] == nil {
          heldBack[stream] = (frame, slot)
        } else {
          toSend.append(frame)
          if let late = heldBack[stream] {
            toSend.append(late.frame)
            heldBack[stream] = nil
          }
          if random.chance(percent: duplicatePercent) { toSend.append(frame) }
        }
        for packet in toSend where emitted < totalPackets {
          emit(packet, time)
          emitted += 1
        }
        if inOutage(slot: slot) { continue }
        if rtcpEveryPackets > 0 && slot > 0 && slot % rtcpEveryPackets == 0 {
          emitSenderReport(stream: stream, slot: slot, at: time, emit: emit)
        }
        if rtcpEveryPackets > 0 && slot > Self.reportDelaySlots
          && (slot - Self.reportDelaySlots) % rtcpEveryPackets == 0
        {
          emitReceiverReport(
            stream: stream, slot: slot, at: time,
            fractionLost: min(255, lostSinceReport[stream] * 256 / rtcpEveryPackets),
            cumulativeLost: lostTotal[stream], emit: emit)
          lostSinceReport[stream] = 0
        }
      }
    }
  }

  /// The receiver answers an SR this many packet intervals (40 ms) later, having held it for
  /// `receiverHoldSeconds`: the RTT seen from the capture is 40 - 25 = 15 ms.
  static let reportDelaySlots = 2
  static let receiverHoldSeconds = 0.025

  /// The compact NTP timestamp (RFC 3550 section 4) of the SR sent at `slot`.
  static func senderReportNTP(slot: Int) -> UInt64 {
    (3_976_000_000 + UInt64(slot) / 50) << 32 | UInt64(slot % 50) * (UInt64(1) << 32) / 50
  }

  /// An SR from the stream's sender on the RTCP port (RTP port + 1, RFC 3550 section 11).
  private func emitSenderReport(
    stream: Int, slot: Int, at time: CaptureTime,
    emit: (_ frame: [UInt8], _ time: CaptureTime) -> Void
  ) {
    let (source, destination) = Self.endpoints(of: stream)
    let report = RTCPBuilder.senderReport(
      ssrc: Self.ssrc(of: stream), ntpTimestamp: Self.senderReportNTP(slot: slot),
      rtpTimestamp: UInt32(truncatingIfNeeded: slot) &* Self.samplesPerPacket,
      packetCount: UInt32(slot), octetCount: UInt32(slot) * 160)
    emit(
      PacketBuilder.frame(
        source: Endpoint(address: source.address, port: source.port + 1),
        destination: Endpoint(address: destination.address, port: destination.port + 1),
        payload: report), time)
  }

  /// The receiver's RR about the stream, echoing the SR of `reportDelaySlots` earlier.
  private func emitReceiverReport(
    stream: Int, slot: Int, at time: CaptureTime, fractionLost: Int, cumulativeLost: Int,
    emit: (_ frame: [UInt8], _ time: CaptureTime) -> Void
  ) {
    let (source, destination) = Self.endpoints(of: stream)
    let echoed = Self.senderReportNTP(slot: slot - Self.reportDelaySlots)
    let block = RTCPReportBlock(
      reporterSSRC: Self.ssrc(of: stream) ^ 0xFFFF, sourceSSRC: Self.ssrc(of: stream),
      fractionLost: UInt8(fractionLost), cumulativeLost: Int32(cumulativeLost),
      extendedHighestSequence: UInt32(0xFF00 + slot), jitter: 0,
      lastSR: UInt32(truncatingIfNeeded: echoed >> 16),
      delaySinceLastSR: UInt32(Self.receiverHoldSeconds * 65_536))
    let report = RTCPBuilder.receiverReport(ssrc: Self.ssrc(of: stream) ^ 0xFFFF, blocks: [block])
    emit(
      PacketBuilder.frame(
        source: Endpoint(address: destination.address, port: destination.port + 1),
        destination: Endpoint(address: source.address, port: source.port + 1),
        payload: report), time)
  }
}
