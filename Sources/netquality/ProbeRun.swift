import Foundation
import NetQualityCore
import NetQualityExport
import NetQualityProbe

/// The one-shot probe loop of `netquality probe`: send on schedule, read answers, settle, and
/// every 2 s close a window of the engine, as the agent would, for the levels per direction.
struct ProbeRun {
  let sender: STAMPSender
  let count: Int
  let printLines: Bool
  let json: Bool
  var engine = Engine()
  var lastSnapshot: PeerSnapshot?
  private(set) var answered = 0

  init(sender: STAMPSender, count: Int, printLines: Bool, json: Bool) {
    self.sender = sender
    self.count = count
    self.printLines = printLines
    self.json = json
  }

  /// The longest wait between looks at the stop flag.
  static let pollMilliseconds: Int64 = 100

  mutating func loop() throws(SocketError) {
    let tick = engine.configuration.tickIntervalSeconds
    var nextTick = WallClock.now().advanced(bySeconds: tick)
    var stopping = false
    while true {
      stopping = stopping || StopSignals.stopRequested.load(ordering: .relaxed)
      let sending = !stopping && (count == 0 || sender.session.sentCount < count)
      if sending { sender.sendIfDue(monotonicNow: WallClock.monotonicNow()) }
      try sender.receiveAnswers { record($0) }
      sender.settle(now: WallClock.now()) { record($0) }
      let now = WallClock.now()
      if now >= nextTick {
        closeWindow(at: nextTick)
        nextTick = nextTick.advanced(bySeconds: tick)
      }
      // Done once nothing more is to be sent and every probe is settled; a second signal
      // stops at once.
      if !sending && sender.session.inFlight == 0 { break }
      let untilTick =
        (nextTick.nanosecondsSinceEpoch - now.nanosecondsSinceEpoch + 999_999) / 1_000_000
      let waitMilliseconds = sender.millisecondsUntilDue(
        sending: sending, limit: Int32(max(0, min(Self.pollMilliseconds, untilTick))))
      _ = try sender.socket.waitUntilReadable(timeoutMilliseconds: waitMilliseconds)
    }
    closeWindow(at: WallClock.now())
  }

  private mutating func record(_ sample: ProbeSample) {
    engine.record(probe: sample)
    if case .replied = sample.outcome { answered += 1 }
    guard printLines else { return }
    print(Self.line(sample))
  }

  private mutating func closeWindow(at time: CaptureTime) {
    let result = engine.tick(at: time)
    lastSnapshot = result.snapshot.peers.first ?? lastSnapshot
    guard !json, let peer = result.snapshot.peers.first else { return }
    for event in result.events { print("** " + TimelineTable.event(event)) }
    print(Self.windowLine(peer))
    fflush(nil)  // every stream: a pipe (a test, a supervisor) sees each window as it closes
  }

  /// One answered or lost probe, ping-style.
  static func line(_ sample: ProbeSample) -> String {
    switch sample.outcome {
    case .lost:
      return "seq=\(sample.sequence) lost"
    case .duplicate:
      return "seq=\(sample.sequence) duplicate"
    case .unexpected:
      return "seq=\(sample.sequence) answer to a probe never sent (possibly spoofed)"
    case .late(let reply):
      let after = reply.receivedAt.seconds(since: sample.sentAt) * 1000
      return "seq=\(sample.sequence) late (\(DecimalText.fixed(after, places: 3)) ms after it left)"
    case .replied(let reply):
      let turnaround = reply.reflectorSentAt.seconds(since: reply.reflectorReceivedAt)
      let rtt = (reply.receivedAt.seconds(since: sample.sentAt) - turnaround) * 1000
      var text = "seq=\(sample.sequence) rtt=\(DecimalText.fixed(rtt, places: 3)) ms"
      if reply.clocksSynchronized {
        let forward = reply.reflectorReceivedAt.seconds(since: sample.sentAt) * 1000
        let backward = reply.receivedAt.seconds(since: reply.reflectorSentAt) * 1000
        text +=
          " fwd=\(DecimalText.fixed(forward, places: 3)) ms"
          + " bwd=\(DecimalText.fixed(backward, places: 3)) ms"
      }
      if reply.reordered { text += " reordered" }
      return text
    }
  }

  /// A window's levels and figures per direction.
  static func windowLine(_ peer: PeerSnapshot) -> String {
    guard let probe = peer.probe else { return "-- \(peer.state.rawValue)" }
    let window = probe.window
    func percent(_ ratio: Double) -> String { DecimalText.fixed(ratio * 100, places: 2) + " %" }
    // Per probe and in the summary ping's 3-decimal milliseconds (microseconds exact); the
    // window's figures as every other view prints them.
    func milliseconds(_ value: Double?) -> String { DurationText.milliseconds(value, places: 2) }
    return "-- \(peer.state.rawValue): tx \(peer.tx.level.name) rx \(peer.rx.level.name)"
      + "  loss fwd \(percent(window.forwardLossRatio)) bwd \(percent(window.backwardLossRatio))"
      + "  rtt \(milliseconds(probe.roundTripMilliseconds))"
      + "  jitter fwd \(milliseconds(probe.forwardJitterMilliseconds))"
      + " bwd \(milliseconds(probe.backwardJitterMilliseconds))"
  }

  func summaryText() -> String {
    let target = sender.options.target
    guard let peer = lastSnapshot, let probe = peer.probe else {
      return "--- \(target) ---\nno probe settled"
    }
    let total = probe.total
    let session = sender.session
    let counters = sender.counters
    func percent(_ ratio: Double) -> String { DecimalText.fixed(ratio * 100, places: 2) + " %" }
    func milliseconds(_ seconds: Double?) -> String {
      seconds.map { DecimalText.fixed($0 * 1000, places: 3) } ?? "-"
    }
    var lines = [
      "--- \(target) STAMP statistics ---",
      "\(total.sent) probes sent, \(total.received) answered; lost \(total.forwardLost) forward "
        + "(\(percent(total.forwardLossRatio))), \(total.backwardLost) backward "
        + "(\(percent(total.backwardLossRatio)))"
        + (probe.pendingLost > 0 ? ", \(probe.pendingLost) direction unknown" : "")
        + "; \(total.duplicates) duplicates, \(total.reordered) reordered, \(session.late) late"
        + (counters.unexpected > 0
          ? "; POSSIBLY SPOOFED: \(counters.unexpected) answers to probes never sent (the "
            + "reflector answers packets forged with this prober's address; its loss may be theirs)"
          : ""),
      "rtt min/mean/max = \(milliseconds(total.roundTrip.minSeconds))/"
        + "\(milliseconds(total.roundTrip.meanSeconds))/\(milliseconds(total.roundTrip.maxSeconds)) ms",
      "ipdv mean forward \(milliseconds(total.forwardDelayVariation.meanSeconds)) ms, backward "
        + "\(milliseconds(total.backwardDelayVariation.meanSeconds)) ms",
    ]
    if probe.clocksSynchronized {
      lines.append(
        "one-way delay mean forward \(milliseconds(total.forwardDelay.meanSeconds)) ms, backward "
          + "\(milliseconds(total.backwardDelay.meanSeconds)) ms")
    } else {
      lines.append("one-way delay: not measured (both clocks must say they are synchronised)")
    }
    lines.append(
      "timestamps: \(probe.kernelTimestamps.map { $0 ? "kernel" : "user-space" } ?? "no answer"); "
        + "refused answers: "
        + "\(counters.foreign) foreign, \(counters.malformed) malformed, \(counters.badHMAC) bad HMAC"
        + (counters.missedSends > 0 ? "; \(counters.missedSends) sends missed (loop late)" : "")
        + (counters.sendErrors > 0
          ? "; \(counters.sendErrors) refused by the socket (\(sender.lastSendError ?? ""))" : ""))
    lines.append(
      "quality: tx \(peer.tx.level.name), rx \(peer.rx.level.name) (\(peer.state.rawValue))")
    return lines.joined(separator: "\n")
  }

  func summaryJSON() -> String {
    var members: [(String, JSONValue)] = [
      ("target", .string(sender.options.target.description)),
      ("late", .integer(sender.session.late)),
      ("unexpected", .integer(sender.session.unexpected)),
      ("refused_foreign", .integer(sender.counters.foreign)),
      ("refused_malformed", .integer(sender.counters.malformed)),
      ("refused_bad_hmac", .integer(sender.counters.badHMAC)),
      ("possibly_spoofed", .bool(sender.counters.unexpected > 0)),
      ("missed_sends", .integer(sender.counters.missedSends)),
      ("send_buffer_full", .integer(sender.counters.sendBufferFull)),
      ("send_errors", .integer(sender.counters.sendErrors)),
    ]
    if let peer = lastSnapshot {
      members.append(("peer", TimelineJSON.peer(peer)))
    }
    return JSONValue.object(members).text
  }
}
