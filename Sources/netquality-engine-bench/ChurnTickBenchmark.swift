import Foundation
import NetQualityCore
import NetQualitySynth

/// Times the engine's ticks under the churn of a TURN or SFU host (issue 37), without capture
/// or sockets: PEERS_PER_SECOND new peers a second, each a two-way G.711 call with one
/// distinct address, living LIFETIME seconds, for SECONDS of simulated time. Each side sends
/// 5 packets a second and a sender report every 5 s. The engine holds a departed peer through
/// its timers (disconnected, timed out) and the grace after them, so the ticks carry many
/// more peers than are active: the cost this bench is for.
///
///     netquality-engine-bench --churn PEERS_PER_SECOND LIFETIME SECONDS
///
/// Prints, for the ticks of the last third (the steady state), the peers held and the median
/// and maximum time of `Engine.tick` (harvest and scoring; the agent's publishing is not in
/// it); then ticks on without traffic until no peer is left, and prints the resident memory
/// before and after (the heap trimmed, as the agent does).
/// glibc's `malloc_trim(3)` (in <malloc.h>, which Swift's Glibc module does not import).
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32

enum ChurnTickBenchmark {
  /// 200 ms between a side's packets (5 a second), a sender report every 5 s (RFC 3550
  /// section 6.2's minimum interval), ticks every 2 s (the agent's).
  static let packetIntervalNanoseconds: Int64 = 200_000_000
  static let reportEveryPackets = 25
  static let tickNanoseconds: Int64 = 2_000_000_000

  static func run(peersPerSecond: Int, lifetimeSeconds: Int, seconds: Int) {
    var configuration = EngineConfiguration()
    let local = IPAddress(ipv4: 127, 0, 0, 1)
    configuration.localNetworks = [NetworkPrefix(address: local)]
    var engine = Engine(configuration: configuration)
    let start: Int64 = 1_700_000_000_000_000_000
    let end = start + Int64(seconds) * 1_000_000_000
    let lifetime = Int64(lifetimeSeconds) * 1_000_000_000
    let arrivalNanoseconds = 1_000_000_000 / Int64(max(1, peersPerSecond))
    // Peers in order of birth; each sends at its birth's phase of the 200 ms cadence.
    var born = 0
    var firstAlive = 0
    var nextTick = start + tickNanoseconds
    var tickNanosecondsTaken: [(peers: Int, nanoseconds: UInt64)] = []
    var now = start
    let step: Int64 = 20_000_000
    while now < end {
      while start + Int64(born) * arrivalNanoseconds <= now { born += 1 }
      while firstAlive < born, start + Int64(firstAlive) * arrivalNanoseconds + lifetime <= now {
        firstAlive += 1
      }
      for peer in firstAlive..<born {
        let birth = start + Int64(peer) * arrivalNanoseconds
        // The peer sends every 200 ms from its birth: the packet due in [now, now + step), if
        // any, is fed at `now` (the step's packets in time order, whatever their peers).
        let age = now - birth
        let offset =
          (packetIntervalNanoseconds - age % packetIntervalNanoseconds) % packetIntervalNanoseconds
        guard offset < step else { continue }
        let sequence = Int((age + offset) / packetIntervalNanoseconds)
        feed(&engine, peer: peer, sequence: sequence, local: local, at: now)
      }
      now += step
      if now >= nextTick {
        let began = DispatchTime.now().uptimeNanoseconds
        let result = engine.tick(at: CaptureTime(nanosecondsSinceEpoch: nextTick))
        tickNanosecondsTaken.append(
          (result.snapshot.peers.count, DispatchTime.now().uptimeNanoseconds - began))
        nextTick += tickNanoseconds
      }
    }
    // Then the quiet after the churn: the timers and the grace run out, every peer is
    // forgotten, and the engine's memory should come back (the agent trims the heap then too).
    let peak = residentMebibytes()
    var held = 1
    let quietEnd = nextTick + 300 * 1_000_000_000
    while held > 0 && nextTick < quietEnd {
      held = engine.tick(at: CaptureTime(nanosecondsSinceEpoch: nextTick)).snapshot.peers.count
      nextTick += tickNanoseconds
    }
    _ = mallocTrim(0)
    let quietSeconds = (nextTick - end) / 1_000_000_000
    let steady = tickNanosecondsTaken.suffix(max(1, tickNanosecondsTaken.count / 3))
    let times = steady.map(\.nanoseconds).sorted()
    let peers = steady.map(\.peers).sorted()
    print(
      "churn \(peersPerSecond)/s x \(lifetimeSeconds) s for \(seconds) s: "
        + "\(peers[peers.count / 2]) peers held (median of the last \(steady.count) ticks), "
        + "Engine.tick median \(times[times.count / 2] / 1_000_000) ms, "
        + "max \((times.last ?? 0) / 1_000_000) ms; resident \(peak) MiB at the end, "
        + "\(residentMebibytes()) MiB with \(held) peers \(quietSeconds) s later")
  }

  /// The process's resident memory (/proc/self/statm's second field, in pages).
  static func residentMebibytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return -1
    }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
  }

  /// One packet each way between peer `peer` (10.x.y.z) and the local side, and a sender
  /// report each way every `reportEveryPackets`.
  static func feed(
    _ engine: inout Engine, peer: Int, sequence: Int, local: IPAddress, at nanoseconds: Int64
  ) {
    let remote = Endpoint(
      address: IPAddress(ipv4: 0x0A00_0000 | UInt32(truncatingIfNeeded: peer & 0xFF_FFFF)),
      port: 40_000)
    let here = Endpoint(address: local, port: UInt16(20_000 + (peer % 20_000) * 2))
    let time = CaptureTime(nanosecondsSinceEpoch: nanoseconds)
    for (source, destination, ssrc) in [
      (remote, here, UInt32(truncatingIfNeeded: peer) | 0x8000_0000),
      (here, remote, UInt32(truncatingIfNeeded: peer) & 0x7FFF_FFFF),
    ] {
      let rtp = PacketBuilder.rtp(
        payloadType: 8, sequenceNumber: UInt16(truncatingIfNeeded: sequence),
        timestamp: UInt32(truncatingIfNeeded: sequence * 1600), ssrc: ssrc)
      let frame = PacketBuilder.frame(source: source, destination: destination, payload: rtp)
      frame.withUnsafeBytes {
        engine.ingest(frame: $0, originalLength: frame.count, linkType: .ethernet, at: time)
      }
      guard sequence % reportEveryPackets == reportEveryPackets - 1 else { continue }
      let report = RTCPBuilder.senderReport(
        ssrc: ssrc, ntpTimestamp: UInt64(nanoseconds) << 2,
        rtpTimestamp: UInt32(truncatingIfNeeded: sequence * 1600),
        packetCount: UInt32(sequence + 1), octetCount: UInt32((sequence + 1) * 160))
      let control = PacketBuilder.frame(
        source: Endpoint(address: source.address, port: source.port + 1),
        destination: Endpoint(address: destination.address, port: destination.port + 1),
        payload: report)
      control.withUnsafeBytes {
        engine.ingest(frame: $0, originalLength: control.count, linkType: .ethernet, at: time)
      }
    }
  }
}
