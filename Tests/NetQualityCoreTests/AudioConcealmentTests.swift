import XCTest

@testable import NetQualityCore

final class AudioConcealmentTests: XCTestCase {
  /// 20 ms Opus packets at 48 kHz: 960 ticks each.
  func testLossIsConcealedAndDTXIsSilence() {
    var concealment = AudioConcealment()
    var sequence: UInt16 = 100
    var timestamp: UInt32 = 0
    func send(_ count: Int, skip: Set<Int> = [], marker first: Bool = false) {
      for index in 0..<count {
        if !skip.contains(index) {
          concealment.record(
            sequence: sequence, timestamp: timestamp, marker: first && index == 0)
        }
        sequence &+= 1
        timestamp &+= 960
      }
    }
    send(50)
    // Three packets lost in one burst, one alone: two events, 80 ms.
    send(50, skip: [10, 11, 12, 30])
    // 1 s of DTX: no packets, the timestamp runs on, the talkspurt starts with the marker.
    timestamp &+= 48_000
    send(10, marker: true)
    let counts = concealment.counts(secondsPerTick: 1.0 / 48_000)
    XCTAssertEqual(counts.concealmentEvents, 2)
    XCTAssertEqual(counts.concealedSeconds, 0.080, accuracy: 1e-9)
    XCTAssertEqual(counts.silenceSeconds, 1.0, accuracy: 1e-9)
  }
}
