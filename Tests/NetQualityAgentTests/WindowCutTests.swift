import Foundation
import NetQualityCore
import NetQualitySynth
import Synchronization
import XCTest

@testable import NetQualityAgent

/// Issue 38: the live agent's windows are cut at capture timestamps, as a replay's are: a tick
/// closes the window of the packets stamped before its boundary, whichever were fed before the
/// ticker woke.
final class WindowCutTests: XCTestCase {
  final class SnapshotSink: TickSink {
    var name: String { "snapshots" }
    let results = Mutex<[Engine.TickResult]>([])
    func publish(_ tick: TickPublication) { results.withLock { $0.append(tick.result) } }
  }

  static let start: Int64 = 1_767_225_600_000_000_000
  static let interval: Int64 = 2_000_000_000

  static func time(_ index: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: start + Int64(index) * 20_000_000)
  }

  /// RTP packet `index` (one every 20 ms from `start`), fed as a capture thread feeds it.
  static func feed(_ analyzer: inout StreamAnalyzer, _ index: Int) {
    let rtp = PacketBuilder.rtp(
      payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: 0xC0FFEE)
    let frame = PacketBuilder.frame(
      source: HTTPRoutesTests.remote, destination: HTTPRoutesTests.local, payload: rtp)
    frame.withUnsafeBytes {
      analyzer.ingest(
        frame: $0, originalLength: $0.count, linkType: .ethernet, at: time(index), interface: 0)
    }
  }

  static func configuration() -> EngineConfiguration {
    var configuration = EngineConfiguration()
    configuration.localNetworks = [NetworkPrefix("192.0.2.0/24")].compactMap { $0 }
    return configuration
  }

  /// An agent's state and ticker without captures, its publications kept.
  static func agent() -> (AgentState, SnapshotSink, TickService) {
    let state = AgentState(engine: Engine(configuration: configuration()))
    let sink = SnapshotSink()
    return (state, sink, TickService(state: state, sinks: [sink]))
  }

  /// The grid's boundary number `tick` from `start`.
  static func boundary(_ tick: Int) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: start + Int64(tick) * interval)
  }

  /// Each tick's window packets of the one stream, live (the ticker waking `wakeAfter` packets
  /// after each boundary, those packets already fed) and replayed.
  func testLiveWindowsAreTheReplaysWhateverTheTickerReads() throws {
    let (state, sink, ticker) = Self.agent()
    let boundary = Self.boundary
    // The first tick arms the cut at the next boundary.
    ticker.tick(at: boundary(0), reading: boundary(0), intervalNanoseconds: Self.interval)
    var fed = 0
    // Ticks 1...5; the ticker reads the wall clock 0.13, 0.5, 0, 1.1 and 0.3 s after each
    // boundary, by when the captures fed the packets stamped before then.
    for (tick, wakeSeconds) in [(1, 0.13), (2, 0.5), (3, 0.0), (4, 1.1), (5, 0.3)] {
      let woke = boundary(tick).advanced(bySeconds: wakeSeconds)
      state.capture.withLock { analyzer in
        while Self.time(fed) < woke {
          Self.feed(&analyzer, fed)
          fed += 1
        }
      }
      ticker.tick(at: boundary(tick), reading: woke, intervalNanoseconds: Self.interval)
    }
    var engine = Engine(configuration: Self.configuration())
    var schedule = TickSchedule(intervalSeconds: 2)
    var replayed: [Int64] = []
    for index in 0..<fed {
      let rtp = PacketBuilder.rtp(
        payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160),
        ssrc: 0xC0FFEE)
      let frame = PacketBuilder.frame(
        source: HTTPRoutesTests.remote, destination: HTTPRoutesTests.local, payload: rtp)
      frame.withUnsafeBytes {
        engine.replay(
          frame: $0, originalLength: $0.count, linkType: .ethernet, at: Self.time(index),
          schedule: &schedule,
          onTick: { replayed.append($0.snapshot.streams.first?.packets ?? 0) }, onSkip: { _ in })
      }
    }
    let live = sink.results.withLock {
      $0.dropFirst().map { $0.snapshot.streams.first?.packets ?? 0 }
    }
    // The replay ticks at each boundary a packet passed: 2 to 10 s (the packets fed reach into
    // the sixth window, whose tick has not come).
    XCTAssertEqual(replayed, [100, 100, 100, 100, 100])
    XCTAssertEqual(live, replayed, "the ticker's reads cut nothing: the packets did")
  }

  /// A tick that woke late, after the window it missed was cut by its packets: that window is
  /// scored as its own tick first (its events published with the late one), and the late tick
  /// closes the rest.
  func testACutMadeBeforeALateTickIsScoredAsItsOwnTick() throws {
    let (state, sink, ticker) = Self.agent()
    let boundary = Self.boundary
    ticker.tick(at: boundary(0), reading: boundary(0), intervalNanoseconds: Self.interval)
    // Packets to 4.3 s: the window of the tick at 2 s was cut at its boundary, and no tick came
    // (the process was stopped) until it woke at 4.3 s and closed the boundary at 4 s.
    state.capture.withLock { analyzer in
      for index in 0..<215 { Self.feed(&analyzer, index) }
    }
    XCTAssertTrue(state.capture.withLock(\.hasMadeCut))
    ticker.tick(
      at: boundary(2), reading: boundary(2).advanced(bySeconds: 0.3),
      intervalNanoseconds: Self.interval)
    let results = sink.results.withLock { $0 }
    XCTAssertEqual(results.count, 2, "one publication per wake")
    let late = try XCTUnwrap(results.last)
    XCTAssertEqual(late.snapshot.time, boundary(2))
    // The window from 2 s: the 2 s to 4 s and the 15 packets fed after 4 s before the late
    // tick armed a cut again (a late tick's window is not exact; it says it is late).
    XCTAssertEqual(late.snapshot.streams.first?.packets, 115)
    XCTAssertEqual(late.snapshot.streams.first?.packetsTotal, 215)
    XCTAssertEqual(late.snapshot.intervalSeconds, 2, accuracy: 1e-9, "after the tick at 2 s")
    // The first window's own tick: the peer connected in it, and that event is published.
    XCTAssertEqual(late.events.filter { $0.kind == .connected }.count, 1)
  }
}
