import Foundation
import Glibc
import NetQualityCore
import NetQualitySynth
import Synchronization

/// A clearly labelled demo call on loopback, so a first `netquality run` shows peers, levels,
/// the dashboard and /metrics at once: "demo peer" 127.0.0.2 sends G.711 with 2 % loss and a
/// few ms of jitter to 127.0.0.1, which answers with its own stream; both send RTCP (SR, and
/// RRs whose LSR/DLSR give a round trip). Only loopback addresses are used.
final class DemoSource: Sendable {
  static let peerAddress = "127.0.0.2"
  static let localAddress = "127.0.0.1"
  static let peerPort: UInt16 = 47_000
  static let localPort: UInt16 = 47_002

  private let stopping = Atomic<Bool>(false)

  init() {}

  func stop() {
    stopping.store(true, ordering: .relaxed)
  }

  /// Starts the sending thread; fails when the loopback sockets cannot be bound.
  func start() throws {
    let peerRTP = try Self.socket(bound: Self.peerAddress, port: Self.peerPort)
    let peerRTCP = try Self.socket(bound: Self.peerAddress, port: Self.peerPort + 1)
    let localRTP = try Self.socket(bound: Self.localAddress, port: Self.localPort)
    let localRTCP = try Self.socket(bound: Self.localAddress, port: Self.localPort + 1)
    let thread = Thread { [self] in
      self.loop(peerRTP: peerRTP, peerRTCP: peerRTCP, localRTP: localRTP, localRTCP: localRTCP)
      for descriptor in [peerRTP, peerRTCP, localRTP, localRTCP] { close(descriptor) }
    }
    thread.name = "demo source"
    thread.start()
  }

  private func loop(peerRTP: Int32, peerRTCP: Int32, localRTP: Int32, localRTCP: Int32) {
    var random = SplitMix64(seed: UInt64(time(nil)))
    var index = 0
    var lastPeerSR: (ntp: UInt64, at: Double)?
    var lastOurSR: (ntp: UInt64, at: Double)?
    var lostSinceReport = 0
    while !stopping.load(ordering: .relaxed) {
      let now = Self.seconds()
      // The peer's 20 ms G.711 packet: 2 % lost on the way, up to 6 ms late.
      if !random.chance(percent: 2) {
        usleep(UInt32(random.next() % 6000))
        let rtp = PacketBuilder.rtp(
          payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: index),
          timestamp: UInt32(truncatingIfNeeded: index * 160), ssrc: 0xDE30_0002)
        Self.send(rtp, from: peerRTP, to: Self.localAddress, port: Self.localPort)
      } else {
        lostSinceReport += 1
      }
      let ours = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: index),
        timestamp: UInt32(truncatingIfNeeded: index * 160), ssrc: 0xDE30_0001)
      Self.send(ours, from: localRTP, to: Self.peerAddress, port: Self.peerPort)
      if index % 250 == 100 {
        // The peer's SR and ours; 60 ms later the RRs echoing them.
        let ntp = Self.ntp(now)
        let sr =
          RTCPBuilder.senderReport(
            ssrc: 0xDE30_0002, ntpTimestamp: ntp,
            rtpTimestamp: UInt32(truncatingIfNeeded: index * 160),
            packetCount: UInt32(index), octetCount: UInt32(index * 160))
          + RTCPBuilder.sourceDescription(ssrc: 0xDE30_0002, canonicalName: "demo-peer@127.0.0.2")
        Self.send(sr, from: peerRTCP, to: Self.localAddress, port: Self.localPort + 1)
        // DLSR counts from when the SR reached us: right after it was sent, on loopback.
        lastPeerSR = (ntp, Self.seconds())
        // Ours: the peer's RR about our stream echoes it, which is what gives the round trip
        // at a host's capture point (our own RR about theirs, timed here, would give 0).
        let ourSR = RTCPBuilder.senderReport(
          ssrc: 0xDE30_0001, ntpTimestamp: ntp,
          rtpTimestamp: UInt32(truncatingIfNeeded: index * 160),
          packetCount: UInt32(index), octetCount: UInt32(index * 160))
        Self.send(ourSR, from: localRTCP, to: Self.peerAddress, port: Self.peerPort + 1)
        lastOurSR = (ntp, Self.seconds())
      }
      if index % 250 == 103, let sr = lastPeerSR {
        // Our RR about the peer's stream, and the peer's RR about ours (1 % loss reported).
        let held = Self.seconds() - sr.at
        let block = RTCPReportBlock(
          reporterSSRC: 0xDE30_0001, sourceSSRC: 0xDE30_0002,
          fractionLost: UInt8(min(255, lostSinceReport * 256 / 250)), cumulativeLost: 0,
          extendedHighestSequence: UInt32(index), jitter: 16,
          lastSR: UInt32(truncatingIfNeeded: sr.ntp >> 16),
          delaySinceLastSR: UInt32(held * 65_536))
        Self.send(
          RTCPBuilder.receiverReport(ssrc: 0xDE30_0001, blocks: [block]), from: localRTCP,
          to: Self.peerAddress, port: Self.peerPort + 1)
        // Counted as a receiver counts (RFC 3550 A.3): 3 more of our packets lost in each 250
        // between reports (1.2 %, the 3/256 of its fraction lost).
        // Its LSR/DLSR echo our SR as if the path took 30 ms both ways: DLSR is what it
        // held the SR less those 30 ms, so arrival − LSR − DLSR (RFC 3550 section 6.4.1) is 30 ms.
        let ours = lastOurSR ?? (0, Self.seconds())
        let heldOurs = max(0, Self.seconds() - ours.at - Self.demoRoundTripSeconds)
        let theirs = RTCPReportBlock(
          reporterSSRC: 0xDE30_0002, sourceSSRC: 0xDE30_0001, fractionLost: 3,
          cumulativeLost: Int32(truncatingIfNeeded: 3 * (index / 250 + 1)),
          extendedHighestSequence: UInt32(index), jitter: 24,
          lastSR: UInt32(truncatingIfNeeded: ours.ntp >> 16),
          delaySinceLastSR: UInt32(heldOurs * 65_536))
        Self.send(
          RTCPBuilder.receiverReport(ssrc: 0xDE30_0002, blocks: [theirs]), from: peerRTCP,
          to: Self.localAddress, port: Self.localPort + 1)
        lostSinceReport = 0
      }
      index += 1
      let next = now + 0.02
      let wait = next - Self.seconds()
      if wait > 0 { usleep(UInt32(wait * 1e6)) }
    }
  }

  /// The round trip the demo peer's reports state: a call across a country.
  static let demoRoundTripSeconds = 0.030

  static func seconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
  }

  /// NTP time (RFC 5905: seconds since 1900 and a 32-bit fraction).
  static func ntp(_ seconds: Double) -> UInt64 {
    let ntpSeconds = UInt64(seconds) + 2_208_988_800
    let fraction = UInt64((seconds - seconds.rounded(.down)) * 4_294_967_296)
    return ntpSeconds << 32 | fraction
  }

  static func socket(bound address: String, port: UInt16) throws -> Int32 {
    let descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard descriptor >= 0 else { throw DemoSourceError(reason: String(cString: strerror(errno))) }
    var socketAddress = Self.address(address, port: port)
    let bound = withUnsafePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw DemoSourceError(reason: "cannot bind \(address):\(port): \(reason)")
    }
    return descriptor
  }

  static func address(_ text: String, port: UInt16) -> sockaddr_in {
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_port = port.bigEndian
    inet_pton(AF_INET, text, &socketAddress.sin_addr)
    return socketAddress
  }

  static func send(_ bytes: [UInt8], from descriptor: Int32, to address: String, port: UInt16) {
    var destination = Self.address(address, port: port)
    _ = bytes.withUnsafeBytes { buffer in
      withUnsafePointer(to: &destination) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(
            descriptor, buffer.baseAddress, buffer.count, 0, $0,
            socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    }
  }
}

/// The demo call could not start (its loopback sockets).
struct DemoSourceError: Error, CustomStringConvertible {
  let reason: String
  var description: String { "cannot start the demo source: \(reason)" }
}
