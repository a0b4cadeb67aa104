import NetQualityCore
import XCTest

@testable import NetQualityProbe

/// The per-source limit as a token bucket that never forgets: burst, then the rate, whatever
/// other sources do; addresses spread over the slots.
final class SourceRateLimiterTests: XCTestCase {
  let start = CaptureTime(seconds: 1_000, nanoseconds: 0)
  let source = IPAddress(ipv4: 192, 0, 2, 7)

  func testBurstThenOnePacketPerEmissionInterval() {
    var limiter = SourceRateLimiter(ratePerSecond: 10, burst: 5, key: (1, 1))
    XCTAssertEqual(
      (0..<7).map { _ in limiter.take(source, now: start) },
      [
        true, true, true, true, true, false, false,
      ])
    // 10 packets/s: one more after 0.1 s, and not two.
    let later = start.advanced(bySeconds: 0.1)
    XCTAssertEqual(
      [limiter.take(source, now: later), limiter.take(source, now: later)], [true, false])
    // Idle long enough, the bucket is full again, never fuller.
    let idle = start.advanced(bySeconds: 60)
    XCTAssertEqual((0..<6).filter { _ in limiter.take(source, now: idle) }.count, 5)
  }

  func testRepliesOverAnySpanAreBoundedByBurstPlusRate() {
    // A sender far over its rate, at uneven times: accepted ≤ burst + rate × elapsed.
    var limiter = SourceRateLimiter(ratePerSecond: 200, burst: 400, key: (2, 2))
    var accepted = 0
    var nanoseconds: Int64 = 0
    var state: UInt64 = 42
    for _ in 0..<200_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      nanoseconds += Int64(state >> 52)  // 0 to 4 µs: about 400,000 packets/s
      if limiter.take(source, now: start.advanced(byNanoseconds: nanoseconds)) { accepted += 1 }
      let bound = 400 + 200 * Double(nanoseconds) / 1e9
      guard Double(accepted) <= bound + 1e-9 else {
        return XCTFail("\(accepted) accepted in \(nanoseconds) ns, more than \(bound)")
      }
    }
    XCTAssertGreaterThan(accepted, 400)
  }

  func testOtherSourcesNeverGiveADrainedSourceItsBurstBack() {
    var limiter = SourceRateLimiter(ratePerSecond: 200, burst: 400, key: (3, 3))
    XCTAssertEqual((0..<1_000).filter { _ in limiter.take(source, now: start) }.count, 400)
    // 100,000 other sources, each once, in the same instant: the drained bucket stays drained
    // (sources sharing its slot take from it too, never give).
    for index in 0..<100_000 {
      _ = limiter.take(IPAddress(ipv4: 0xC612_0000 + UInt32(index)), now: start)
    }
    XCTAssertFalse(limiter.take(source, now: start))
  }

  func testAddressesSpreadOverTheSlots() {
    let limiter = SourceRateLimiter(ratePerSecond: 1, burst: 1, key: (4, 4))
    var sources = [Int](repeating: 0, count: SourceRateLimiter.slotCount)
    // 5,000 neighbours in one /16 and 5,000 IPv6 addresses differing in the last word.
    for index in 0..<5_000 {
      sources[limiter.slot(of: IPAddress(ipv4: 0x0A01_0000 + UInt32(index)))] += 1
      sources[limiter.slot(of: IPAddress(high: 0x2001_0DB8_0000_0000, low: UInt64(index)))] += 1
    }
    // 10,000 in 65,536 slots: about 14 % of them share a slot ((n - 1) / slots), none crowds.
    let sharing = sources.filter { $0 > 1 }.reduce(0, +)
    XCTAssertLessThan(sharing, 2_000, "\(sharing) of 10,000 share a slot")
    XCTAssertLessThanOrEqual(sources.max() ?? 0, 6)
    // Another key, other slots: where an address lands cannot be known without the key.
    let other = SourceRateLimiter(ratePerSecond: 1, burst: 1, key: (5, 5))
    let moved = (0..<1_000).filter { index in
      let address = IPAddress(ipv4: 0x0A01_0000 + UInt32(index))
      return limiter.slot(of: address) != other.slot(of: address)
    }.count
    XCTAssertGreaterThan(moved, 990)
  }
}
