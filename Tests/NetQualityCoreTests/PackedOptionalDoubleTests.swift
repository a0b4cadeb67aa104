import XCTest

@testable import NetQualityCore

/// The compact storage of the snapshots' optional figures gives back what was stored, nil and
/// every double a computation can give (a quiet NaN, infinities, -0) alike.
final class PackedOptionalDoubleTests: XCTestCase {
  func testEveryValueAndNilComeBackAsStored() {
    XCTAssertNil(PackedOptionalDouble(nil).value)
    let values: [Double] = [
      0, -0.0, 4.41, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity,
      -.infinity,
    ]
    for value in values {
      let stored = PackedOptionalDouble(value).value
      XCTAssertEqual(stored?.bitPattern, value.bitPattern, "\(value)")
    }
    // 0/0 and a NaN read from somewhere: a value, not nil.
    let zero = Double(values.count - values.count)
    let computed = zero / zero
    XCTAssertTrue(try XCTUnwrap(PackedOptionalDouble(computed).value).isNaN)
    XCTAssertTrue(try XCTUnwrap(PackedOptionalDouble(.nan).value).isNaN)
    XCTAssertNotEqual(PackedOptionalDouble(.nan), PackedOptionalDouble(nil))
    XCTAssertEqual(PackedOptionalDouble(nil), PackedOptionalDouble(nil))
    XCTAssertNotEqual(PackedOptionalDouble(1), PackedOptionalDouble(nil))
  }

  func testSnapshotsGiveBackTheirFigures() {
    let inputs = QualityModel.Inputs(
      packets: 250, lossRatio: 0.031, jitterMilliseconds: 12.5, roundTripMilliseconds: nil,
      isVideo: true)
    var direction = DirectionSnapshot(
      level: .poor, rawLevel: .bad, inputs: inputs, rating: 71.2, meanOpinionScore: nil,
      oneWayDelayMilliseconds: 143.5, limitedBy: .jitter, source: .rtp)
    XCTAssertEqual(direction.inputs, inputs)
    XCTAssertEqual(direction.rating, 71.2)
    XCTAssertNil(direction.meanOpinionScore)
    XCTAssertEqual(direction.oneWayDelayMilliseconds, 143.5)
    XCTAssertEqual(direction.limitedBy, .jitter)
    direction.inputs = nil
    XCTAssertNil(direction.inputs)
    XCTAssertEqual(
      direction,
      DirectionSnapshot(
        level: .poor, rawLevel: .bad, rating: 71.2, oneWayDelayMilliseconds: 143.5,
        limitedBy: .jitter, source: .rtp))

    var peer = PeerSnapshot(
      peer: "203.0.113.9", state: .connected, stateSince: CaptureTime(nanosecondsSinceEpoch: 5),
      rx: direction, tx: .unknown, roundTripMilliseconds: 48.25, roundTripSource: .rtcp,
      rxPackets: 100, rxLost: 3, rxBitsPerSecond: 64_000, txPackets: 99,
      rxPacketsTotal: 10_000_000_000, rxLostTotal: 7, txPacketsTotal: 9, rxRetransmittedPackets: 2,
      txRetransmittedPackets: 1, rxFECPackets: 4, rxRetransmittedTotal: 20,
      txRetransmittedTotal: 10, rxFECTotal: 40, streams: 3)
    XCTAssertEqual(peer.roundTripMilliseconds, 48.25)
    XCTAssertEqual(
      [
        peer.rxPackets, peer.rxLost, peer.txPackets, peer.rxRetransmittedPackets,
        peer.txRetransmittedPackets, peer.rxFECPackets,
      ],
      [100, 3, 99, 2, 1, 4])
    XCTAssertEqual(peer.rxPacketsTotal, 10_000_000_000, "totals keep 64 bits")
    XCTAssertEqual(peer.streams, 3)
    // A window count past 32 bits is clamped, as a stream window's is.
    peer.rxPackets = 1 << 40
    XCTAssertEqual(peer.rxPackets, Int64(Int32.max))
    peer.roundTripMilliseconds = nil
    XCTAssertNil(peer.roundTripMilliseconds)
  }
}
