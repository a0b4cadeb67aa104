import NetQualityCore
import XCTest

@testable import NetQualityProbe

/// The sender's bookkeeping: probes settle in sequence order, answered or past the deadline;
/// duplicates, late and unexpected answers are told apart.
final class STAMPSessionTests: XCTestCase {
  let target = Endpoint(address: IPAddress(ipv4: 10, 0, 0, 2), port: 862)

  func time(_ milliseconds: Double) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_800_000_000_000_000_000 + Int64(milliseconds * 1e6))
  }

  func reply(_ receivedMilliseconds: Double, reflectorSequence: UInt32) -> ProbeReply {
    ProbeReply(
      reflectorReceivedAt: time(receivedMilliseconds - 10),
      reflectorSentAt: time(receivedMilliseconds - 9.9), receivedAt: time(receivedMilliseconds),
      reflectorSequence: reflectorSequence)
  }

  func settled(_ session: inout STAMPSession, at milliseconds: Double) -> [ProbeSample] {
    var samples: [ProbeSample] = []
    session.settle(now: time(milliseconds)) { samples.append($0) }
    return samples
  }

  func testProbesSettleInOrderAnsweredOrPastTheDeadline() {
    var session = STAMPSession(target: target, deadlineSeconds: 1)
    for index in 0..<3 {
      XCTAssertEqual(session.sequenceToSend, UInt32(index))
      XCTAssertTrue(session.sent(at: time(Double(index) * 20)))
    }
    // Probe 1 answered first, probe 0 not yet: nothing settles before 0's deadline.
    XCTAssertEqual(session.receive(sequence: 1, reply: reply(60, reflectorSequence: 0)), .accepted)
    XCTAssertEqual(settled(&session, at: 100), [])
    XCTAssertEqual(session.nextDeadline, time(1000))
    let samples = settled(&session, at: 1000)
    XCTAssertEqual(samples.map(\.sequence), [0, 1])
    XCTAssertEqual(samples[0].outcome, .lost)
    guard case .replied(let answer) = samples[1].outcome else {
      return XCTFail("probe 1 was answered")
    }
    XCTAssertFalse(answer.reordered)
    XCTAssertEqual(session.inFlight, 1)
    // An answer to probe 0 now is late: it was counted lost.
    guard
      case .late(let late) = session.receive(sequence: 0, reply: reply(1010, reflectorSequence: 1))
    else { return XCTFail("an answer after the deadline is late") }
    XCTAssertEqual(late.sentAt, time(0))
    XCTAssertEqual(late.outcome, .late(reply(1010, reflectorSequence: 1)))
    XCTAssertEqual(session.late, 1)
  }

  func testReorderedDuplicateAndUnexpectedAnswers() {
    var session = STAMPSession(target: target, deadlineSeconds: 1)
    for index in 0..<3 { session.sent(at: time(Double(index) * 20)) }
    XCTAssertEqual(session.receive(sequence: 2, reply: reply(80, reflectorSequence: 1)), .accepted)
    XCTAssertEqual(session.receive(sequence: 1, reply: reply(81, reflectorSequence: 0)), .accepted)
    guard
      case .duplicate(let duplicate) = session.receive(
        sequence: 1, reply: reply(82, reflectorSequence: 0))
    else { return XCTFail("a second answer is a duplicate") }
    XCTAssertEqual(duplicate.outcome, .duplicate(receivedAt: time(82)))
    XCTAssertEqual(
      session.receive(sequence: 7, reply: reply(83, reflectorSequence: 2)), .unexpected)
    XCTAssertEqual(session.unexpected, 1)
    XCTAssertEqual(session.receive(sequence: 0, reply: reply(84, reflectorSequence: 2)), .accepted)
    let samples = settled(&session, at: 90)
    XCTAssertEqual(samples.map(\.sequence), [0, 1, 2])
    let reordered = samples.map { sample -> Bool? in
      if case .replied(let answer) = sample.outcome { return answer.reordered }
      return nil
    }
    XCTAssertEqual(reordered, [true, true, false])
  }

  func testAFullWindowSkipsInsteadOfOverwriting() {
    var session = STAMPSession(target: target, deadlineSeconds: 10, capacity: 16)
    for index in 0..<16 { XCTAssertTrue(session.sent(at: time(Double(index)))) }
    XCTAssertNil(session.sequenceToSend)
    XCTAssertFalse(session.sent(at: time(20)))
    XCTAssertEqual(session.skipped, 1)
    XCTAssertEqual(settled(&session, at: 10_000).count, 1)
    XCTAssertEqual(session.sequenceToSend, 16)
  }

  func testSequenceNumbersWrapAt2To32() {
    var session = STAMPSession(
      target: target, deadlineSeconds: 1, capacity: 64, firstSequence: .max - 1)
    for index in 0..<4 { session.sent(at: time(Double(index) * 20)) }
    XCTAssertEqual(session.receive(sequence: 1, reply: reply(100, reflectorSequence: 3)), .accepted)
    XCTAssertEqual(
      session.receive(sequence: .max, reply: reply(101, reflectorSequence: 1)), .accepted)
    XCTAssertEqual(
      session.receive(sequence: 2, reply: reply(102, reflectorSequence: 4)), .unexpected)
    let samples = settled(&session, at: 2000)
    XCTAssertEqual(samples.map(\.sequence), [.max - 1, .max, 0, 1])
    XCTAssertEqual(samples.map { $0.outcome == .lost }, [true, false, true, false])
  }

  func testGapsInTheReflectorsNumbersAreCountedAsAnswersArrive() {
    var session = STAMPSession(target: target, deadlineSeconds: 1)
    for index in 0..<6 { session.sent(at: time(Double(index) * 10)) }
    // Probe 1 overtook probe 0 on the way there (numbers 1 and 0); probe 2 never got there;
    // probe 3's answer (number 2) died on the way back; probe 4 (3) was duplicated on the way
    // there (3 and 4); probe 5's answer (5) comes before probe 4's second copy.
    XCTAssertEqual(session.receive(sequence: 1, reply: reply(30, reflectorSequence: 0)), .accepted)
    XCTAssertEqual(session.receive(sequence: 0, reply: reply(31, reflectorSequence: 1)), .accepted)
    XCTAssertEqual(session.reflectorGaps, 0)
    XCTAssertEqual(session.receive(sequence: 4, reply: reply(70, reflectorSequence: 3)), .accepted)
    XCTAssertEqual(session.reflectorGaps, 1, "number 2 is missing")
    XCTAssertEqual(session.receive(sequence: 5, reply: reply(80, reflectorSequence: 5)), .accepted)
    XCTAssertEqual(session.reflectorGaps, 2, "and 4, until the duplicate brings it")
    guard case .duplicate = session.receive(sequence: 4, reply: reply(81, reflectorSequence: 4))
    else { return XCTFail("a second answer to probe 4") }
    XCTAssertEqual(session.reflectorGaps, 1)
    // The same answer twice (duplicated on the way back) is no new number.
    guard case .duplicate = session.receive(sequence: 5, reply: reply(82, reflectorSequence: 5))
    else { return XCTFail("a second answer to probe 5") }
    XCTAssertEqual(session.reflectorGaps, 1)
    let samples = settled(&session, at: 2000)
    XCTAssertEqual(samples.map(\.reflectorGaps), Array(repeating: 1, count: 6))
  }

  func testAReflectorThatStartsCountingAgainKeepsTheGapsBefore() {
    var session = STAMPSession(target: target, deadlineSeconds: 1)
    for index in 0..<3000 { session.sent(at: time(Double(index))) }
    for index in 0..<2000 where index != 10 {
      _ = session.receive(
        sequence: UInt32(index), reply: reply(Double(index) + 5, reflectorSequence: UInt32(index)))
    }
    XCTAssertEqual(session.reflectorGaps, 1)
    // Restarted: numbers from 0 again, one answer lost after the restart.
    for index in 2000..<2100 where index != 2050 {
      _ = session.receive(
        sequence: UInt32(index),
        reply: reply(Double(index) + 5, reflectorSequence: UInt32(index - 2000)))
    }
    XCTAssertEqual(session.reflectorGaps, 2)
  }

  /// A reflector stopped for a while answers its backlog when it goes on: answers to probes
  /// settled lost long ago, which the in-flight window no longer holds. They are late, and
  /// their reflector numbers fill no gap: read as gaps, they made the backlog backward loss.
  func testABacklogAnsweredLongAfterIsLateAndLeavesNoGap() {
    var session = STAMPSession(target: target, deadlineSeconds: 0.1, capacity: 16)
    var samples: [ProbeSample] = []
    // Probes every 20 ms; the reflector answers 0-9 (numbers 0-9), stops from 200 to 1,800 ms,
    // then answers the first 40 of its backlog at once (10-49, numbers 10-49), refuses the
    // rest unnumbered (50-89) and answers 90-99 in time (numbers 50-59).
    for index in 0..<100 {
      let sent = Double(index) * 20
      session.settle(now: time(sent)) { samples.append($0) }
      if index == 90 {
        for late in 10..<50 {
          let answer = session.receive(
            sequence: UInt32(late), reply: reply(sent, reflectorSequence: UInt32(late)),
            echoedSentAt: time(Double(late) * 20))
          guard case .late(let sample) = answer else { return XCTFail("probe \(late): \(answer)") }
          // Its T1 as the reflector echoed it: the session no longer holds the probe.
          XCTAssertEqual(sample.sentAt, time(Double(late) * 20))
        }
      }
      session.sent(at: time(sent))
      let number = index < 10 ? index : index >= 90 ? index - 40 : nil
      if let number {
        XCTAssertEqual(
          session.receive(
            sequence: UInt32(index), reply: reply(sent + 20, reflectorSequence: UInt32(number))),
          .accepted)
      }
    }
    session.settle(now: time(3000)) { samples.append($0) }
    XCTAssertEqual(session.late, 40)
    XCTAssertEqual(session.unexpected, 0)
    XCTAssertEqual(session.reflectorGaps, 0)
    XCTAssertEqual(samples.count, 100)
    XCTAssertEqual(samples.filter { $0.outcome == .lost }.count, 80)
    XCTAssertEqual(samples.last?.reflectorGaps, 0)
    // A second copy of an answer to a probe no longer held cannot be told from a first.
    XCTAssertEqual(
      session.receive(sequence: 20, reply: reply(3001, reflectorSequence: 20)), .unexpected)
    XCTAssertEqual(session.reflectorGaps, 0)
  }

  func testALateAnswerStillHeldTurnsASecondCopyIntoADuplicate() {
    var session = STAMPSession(target: target, deadlineSeconds: 1)
    session.sent(at: time(0))
    XCTAssertEqual(settled(&session, at: 1000).map(\.outcome), [.lost])
    guard case .late = session.receive(sequence: 0, reply: reply(1500, reflectorSequence: 0))
    else { return XCTFail("after the deadline") }
    guard case .duplicate = session.receive(sequence: 0, reply: reply(1501, reflectorSequence: 0))
    else { return XCTFail("a second copy of the late answer") }
    XCTAssertEqual(session.late, 1)
    XCTAssertEqual(session.reflectorGaps, 0)
  }

  func testAnAnswerOlderThanTheLossHorizonIsUnexpected() {
    var session = STAMPSession(target: target, deadlineSeconds: 1, capacity: 16)
    for index in 0...STAMPSession.lostHorizon {
      session.sent(at: time(Double(index)))
      _ = settled(&session, at: Double(index) + 1000)
    }
    // Probe 0 was lost, but as many probes have been sent since as the horizon holds.
    XCTAssertEqual(
      session.receive(sequence: 0, reply: reply(70_000, reflectorSequence: 0)), .unexpected)
    guard case .late = session.receive(sequence: 1, reply: reply(70_000, reflectorSequence: 0))
    else { return XCTFail("probe 1 is within the horizon") }
  }
}
