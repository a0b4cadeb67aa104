import NetQualityCore

/// Small captures whose clocks misbehave: stamped at the epoch, at the end of 64-bit time,
/// jumping by years either way, one packet out of order. Every mode of `analyze` must read
/// them in a moment, with bounded output and no overflow trap.
public enum HostileCaptures {
  public struct Capture: Sendable {
    /// A file name, with the extension of its format.
    public var name: String
    public var bytes: [UInt8]
  }

  static let caller = Endpoint(address: IPAddress(ipv4: 10, 30, 0, 1), port: 16_384)
  static let callee = Endpoint(address: IPAddress(ipv4: 10, 30, 0, 2), port: 16_386)
  static let nanosecondsPerYear: UInt64 = 31_556_952_000_000_000

  /// Frame `index` of a G.711 call: 20 ms packets, alternating direction every packet.
  static func frame(_ index: Int) -> [UInt8] {
    let forward = index % 2 == 0
    let rtp = PacketBuilder.rtp(
      payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: index / 2),
      timestamp: UInt32(truncatingIfNeeded: index / 2 * 160),
      ssrc: forward ? 0xBAD0_0001 : 0xBAD0_0002)
    return PacketBuilder.frame(
      source: forward ? caller : callee, destination: forward ? callee : caller, payload: rtp)
  }

  /// pcapng with nanosecond stamps: frame i at `stamp(i)` nanoseconds since the epoch.
  static func pcapng(_ name: String, count: Int, stamp: (Int) -> UInt64) -> Capture {
    var writer = PcapNGWriter(resolution: .nanoseconds)
    for index in 0..<count { writer.appendPacket(frame(index), units: stamp(index)) }
    return Capture(name: name, bytes: writer.bytes)
  }

  /// Every capture of the set.
  public static var all: [Capture] {
    let pace: UInt64 = 10_000_000  // 10 ms: two directions of 20 ms packets
    let start: UInt64 = 1_767_225_600_000_000_000
    let endOfInt64 = UInt64(Int64.max)
    return [
      pcapng("epoch-zero.pcapng", count: 400) { _ in 0 },
      pcapng("from-epoch.pcapng", count: 400) { UInt64($0) * pace },
      // Runs from 10 s before 2^63 ns to past it: beyond what Int64 nanoseconds hold.
      pcapng("end-of-int64.pcapng", count: 4000) {
        endOfInt64 - 10_000_000_000 + UInt64($0) * pace
      },
      pcapng("max-stamp.pcapng", count: 400) { _ in .max },
      // The first half at the epoch, the rest at the end of time: a duration that overflows.
      pcapng("epoch-to-end.pcapng", count: 400) { $0 < 200 ? UInt64($0) * pace : .max - 1000 },
      pcapng("years-forward.pcapng", count: 3000) { index in
        start + UInt64(index / 500) * 7 * nanosecondsPerYear + UInt64(index) * pace
      },
      pcapng("years-backward.pcapng", count: 3000) { index in
        start + 40 * nanosecondsPerYear - UInt64(index / 500) * 7 * nanosecondsPerYear
          + UInt64(index) * pace
      },
      // Every packet alternates between 1970 and the end of time.
      pcapng("alternating-ends.pcapng", count: 2000) { index in
        index % 2 == 0 ? UInt64(index) * pace : .max - UInt64(index) * pace
      },
      pcapng("hour-early.pcapng", count: 3000) { index in
        start + UInt64(index) * pace - (index == 1501 ? 3_600_000_000_000 : 0)
      },
    ]
  }
}
