import XCTest

@testable import NetQualityCore

/// Frames from RTP headers: timestamps, marker bits and sequence numbers.
final class VideoFrameTrackerTests: XCTestCase {
  /// A sender of `packetsPerFrame` packets a frame at `framesPerSecond`, 90 kHz.
  struct Sender {
    var framesPerSecond = 30.0
    var packetsPerFrame = 3
    var sequence: UInt16 = 65_500
    var timestamp: UInt32 = 4_294_000_000
    var nanoseconds: Int64 = 1_000_000_000

    /// Sends frame after frame; `drop` says which packets (frame, packet) the network loses.
    mutating func send(
      frames: Int, into tracker: inout VideoFrameTracker,
      drop: (Int, Int) -> Bool = { _, _ in false }
    ) {
      for frame in 0..<frames {
        for packet in 0..<packetsPerFrame {
          if !drop(frame, packet) {
            tracker.record(
              sequence: sequence, timestamp: timestamp, marker: packet == packetsPerFrame - 1,
              arrivalNanoseconds: nanoseconds + Int64(packet) * 100_000,
              payload: UnsafeRawBufferPointer(start: nil, count: 0))
          }
          sequence &+= 1
        }
        timestamp &+= UInt32(90_000 / framesPerSecond)
        nanoseconds += Int64(1e9 / framesPerSecond)
      }
    }

    /// The sender stops for `seconds` (its clock runs on).
    mutating func pause(seconds: Double) {
      timestamp &+= UInt32(90_000 * seconds)
      nanoseconds += Int64(seconds * 1e9)
    }
  }

  var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

  func testFramesAndIntervalsOfASteadyStreamAcrossSequenceAndTimestampWrap() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    sender.send(frames: 90, into: &tracker)
    XCTAssertEqual(tracker.counts.framesReceived, 90)
    XCTAssertEqual(tracker.counts.framesIncomplete, 0)
    XCTAssertEqual(tracker.counts.interFrameIntervals, 89)
    XCTAssertEqual(tracker.counts.totalInterFrameDelaySeconds, 89 / 30, accuracy: 1e-6)
    XCTAssertEqual(tracker.counts.freezes, 0)
  }

  func testAMissingPacketMakesItsFrameIncomplete() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    // Frame 10 loses its middle packet, frame 20 its marker packet (charged to frame 20: its
    // successor is complete), frame 30 its first packet.
    sender.send(frames: 40, into: &tracker) { frame, packet in
      (frame == 10 && packet == 1) || (frame == 20 && packet == 2) || (frame == 30 && packet == 0)
    }
    XCTAssertEqual(tracker.counts.framesReceived, 40)
    XCTAssertEqual(tracker.counts.framesIncomplete, 3)
  }

  func testATwoSecondStopIsOneFreezeOfTwoSecondsAndAFrame() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    sender.send(frames: 60, into: &tracker)
    sender.pause(seconds: 2)
    sender.send(frames: 60, into: &tracker)
    XCTAssertEqual(tracker.counts.framesReceived, 120)
    XCTAssertEqual(tracker.counts.freezes, 1)
    // The interval spans the stop and the frame before it.
    XCTAssertEqual(tracker.counts.freezesSeconds, 2 + 1 / 30, accuracy: 1e-6)
    XCTAssertEqual(tracker.counts.pauses, 0)
  }

  func testASixSecondStopIsAPause() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    sender.send(frames: 30, into: &tracker)
    sender.pause(seconds: 6)
    sender.send(frames: 30, into: &tracker)
    XCTAssertEqual(tracker.counts.freezes, 0)
    XCTAssertEqual(tracker.counts.pauses, 1)
    XCTAssertEqual(tracker.counts.pausesSeconds, 6 + 1 / 30, accuracy: 1e-6)
  }

  func testLostFramesAreFreezesOnlyPastTheThreshold() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    // Frames 40...44 lost (a 200 ms interval: average (29 × 33 + 200) / 30 = 38, threshold
    // max(114, 188)): a freeze; frames 70...72 lost (133 ms): not one.
    sender.send(frames: 100, into: &tracker) { frame, _ in
      (40...44).contains(frame) || (70...72).contains(frame)
    }
    XCTAssertEqual(tracker.counts.framesReceived, 92)
    XCTAssertEqual(tracker.counts.freezes, 1)
    XCTAssertEqual(tracker.counts.freezesSeconds, 0.2, accuracy: 1e-6)
  }

  func testRetransmissionsReceiveFramesWhoseOriginalsWereAllLost() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    let base = sender.timestamp
    sender.send(frames: 20, into: &tracker) { frame, _ in frame == 10 }
    XCTAssertEqual(tracker.counts.framesReceived, 19)
    // Two retransmitted packets of frame 10, one of frame 9 (received already), one of frame
    // 19 (the current one): frame 10 counts once.
    tracker.noteRetransmission(timestamp: base &+ 10 * 3000, arrivalNanoseconds: sender.nanoseconds)
    tracker.noteRetransmission(timestamp: base &+ 10 * 3000, arrivalNanoseconds: sender.nanoseconds)
    tracker.noteRetransmission(timestamp: base &+ 9 * 3000, arrivalNanoseconds: sender.nanoseconds)
    tracker.noteRetransmission(timestamp: base &+ 19 * 3000, arrivalNanoseconds: sender.nanoseconds)
    XCTAssertEqual(tracker.counts.framesReceived, 20)
    XCTAssertEqual(tracker.counts.framesRetransmitted, 1)
  }

  /// libwebrtc's payload padding repeats the newest packet it sent: when that frame's one
  /// packet was lost, its copy on the retransmission stream arrives before the next frame
  /// (seen in a Chromium H.264 call at 5 % loss), and the receiver has the frame then.
  func testARepeatOfALostNewestFrameIsReceivedBeforeTheNextFrame() {
    var tracker = VideoFrameTracker()
    var sender = Sender(framesPerSecond: 20, packetsPerFrame: 1)
    let base = sender.timestamp
    sender.send(frames: 10, into: &tracker) { frame, _ in frame == 9 }
    XCTAssertEqual(tracker.counts.framesReceived, 9)
    // Frame 9's copy 10 ms after it was sent, twice (padding repeats it again).
    let frame9 = sender.nanoseconds - 50_000_000
    for _ in 0..<2 {
      tracker.noteRetransmission(
        timestamp: base &+ 9 * 4500, arrivalNanoseconds: frame9 + 10_000_000)
    }
    XCTAssertEqual(tracker.counts.framesReceived, 10)
    XCTAssertEqual(tracker.counts.framesRetransmitted, 1)
    // Frame 10 on time: an interval of 40 ms after the copy's, no frame counted twice.
    sender.send(frames: 1, into: &tracker)
    XCTAssertEqual(tracker.counts.framesReceived, 11)
    XCTAssertEqual(tracker.counts.interFrameIntervals, 10)
    XCTAssertEqual(tracker.counts.totalInterFrameDelaySeconds, 0.5, accuracy: 1e-6)
    // The NACK's repair of frame 9, after frame 10: received already.
    tracker.noteRetransmission(timestamp: base &+ 9 * 4500, arrivalNanoseconds: sender.nanoseconds)
    XCTAssertEqual(tracker.counts.framesReceived, 11)
  }

  /// After a 6 s cut the sender's first packet to arrive may be a repeat of its newest frame on
  /// the retransmission stream, seconds ahead of the last frame seen: it ends the pause.
  func testARepeatAfterALongCutEndsThePause() {
    var tracker = VideoFrameTracker()
    var sender = Sender(framesPerSecond: 20, packetsPerFrame: 1)
    sender.send(frames: 40, into: &tracker)
    sender.pause(seconds: 6)
    tracker.noteRetransmission(timestamp: sender.timestamp, arrivalNanoseconds: sender.nanoseconds)
    XCTAssertEqual(tracker.counts.framesReceived, 41)
    XCTAssertEqual(tracker.counts.pauses, 1)
    XCTAssertEqual(tracker.counts.pausesSeconds, 6.05, accuracy: 1e-6)
  }

  /// After a blackout the receiver asks (NACK) for what it missed; a frame that comes back by
  /// retransmission arrives then, and a freeze ends with the first frame, new or repaired.
  func testARetransmittedFrameEndsAFreezeAsItArrives() {
    var tracker = VideoFrameTracker()
    var sender = Sender()
    let base = sender.timestamp
    // 30 frames, then 0.5 s whose frames (30...44) are all lost, then frame 45 at 1.5 s.
    sender.send(frames: 46, into: &tracker) { frame, _ in (30...44).contains(frame) }
    XCTAssertEqual(tracker.counts.freezes, 1)
    // Frame 29 arrived at 0.967 s, frame 45 at 1.5 s: one freeze of 0.533 s.
    XCTAssertEqual(tracker.counts.freezesSeconds, 16.0 / 30, accuracy: 1e-3)
    // The 15 lost frames come back 2 ms after frame 45, 1 ms apart: short intervals, no freeze.
    let arrival = sender.nanoseconds - 33_333_333 + 2_000_000
    for frame in 30...44 {
      tracker.noteRetransmission(
        timestamp: base &+ UInt32(frame) * 3000,
        arrivalNanoseconds: arrival + Int64(frame - 30) * 1_000_000)
    }
    XCTAssertEqual(tracker.counts.framesReceived, 46)
    XCTAssertEqual(tracker.counts.framesRetransmitted, 15)
    XCTAssertEqual(tracker.counts.freezes, 1)
    // 31 frames on time (30 intervals) and 15 repaired.
    XCTAssertEqual(tracker.counts.interFrameIntervals, 30 + 15)
  }

  func testLatePacketOfAJudgedFrameStartsNoFrame() {
    var tracker = VideoFrameTracker()
    tracker.record(
      sequence: 1, timestamp: 3000, marker: true, arrivalNanoseconds: 0, payload: empty)
    tracker.record(
      sequence: 3, timestamp: 6000, marker: true, arrivalNanoseconds: 33_000_000, payload: empty)
    tracker.record(
      sequence: 2, timestamp: 3000, marker: false, inOrder: false,
      arrivalNanoseconds: 34_000_000, payload: empty)
    XCTAssertEqual(tracker.counts.framesReceived, 2)
  }
}
