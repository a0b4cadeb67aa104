import Logging
import NetQualityCore

/// The log at any fleet size: one line per event (state changes at info, alerts firing at
/// warning and resolved at info, with their summary) for the first `peerEventsPerTick` events
/// of a tick, then one line per
/// kind of event left (alerts per rule) with its count and the first peers' names. An alert
/// not about a peer (the agent's own) always gets its line.
struct LogSink: TickSink {
  /// Event lines per tick before the rest is summarised. 20: the peers of one call or one
  /// room changing at once each still get a line with their metadata, while a link or an SFU
  /// taking thousands of peers down at once costs a line per kind instead of about six per
  /// peer (issue 12: 325,507 lines, 49 MB, in 10 minutes of churn at 10,000 peers).
  static let defaultPeerEventsPerTick = 20
  /// Peer names in a summary line.
  static let namesPerSummary = 10

  /// Sources named each minute in the lines about silent SIP calls not recorded one by one;
  /// the rest are summed in one more line.
  static let unrecordedSourcesPerMinute = 5

  let logger: Logger
  var peerEventsPerTick = LogSink.defaultPeerEventsPerTick
  let unrecordedCalls = UnrecordedCallsTally()
  var name: String { "log" }

  /// Events of one kind (and one alert rule) beyond the bound.
  private struct Left {
    var kind: EngineEvent.Kind
    var rule: String?
    var peers: [String] = []
  }

  func publish(_ tick: TickPublication) {
    var logged = 0
    var left: [String: Left] = [:]
    for event in tick.result.events {
      let aboutPeer = event.alert.map { $0.labels["peer"] != nil } ?? true
      guard aboutPeer else {
        log(event)
        continue
      }
      if logged < peerEventsPerTick {
        log(event)
        logged += 1
        continue
      }
      let rule = event.alert?.rule
      let key = "\(event.kind.rawValue) \(rule ?? "")"
      left[key, default: Left(kind: event.kind, rule: rule)].peers.append(event.peer)
    }
    let summaries = left.sorted {
      $0.value.peers.count != $1.value.peers.count
        ? $0.value.peers.count > $1.value.peers.count : $0.key < $1.key
    }
    for (_, group) in summaries { summarise(group) }
    let calls = tick.result.snapshot.calls
    if let minute = unrecordedCalls.add(calls.unrecorded, at: tick.result.snapshot.time) {
      summarise(unrecorded: minute.sums, minuteStart: minute.minuteStart)
    }
  }

  /// "41,230 SIP calls from 203.0.113.9 ended with no response at all in the minute from
  /// 12:01 UTC: counted (netquality_calls_silent_unrecorded_total), not recorded one by one".
  private func summarise(unrecorded sums: [UnrecordedCalls], minuteStart: CaptureTime) {
    let seconds = minuteStart.nanosecondsSinceEpoch / 1_000_000_000
    let (hour, minuteOfHour) = ((seconds / 3600) % 24, (seconds / 60) % 60)
    let minute =
      "\(hour < 10 ? "0" : "")\(hour):\(minuteOfHour < 10 ? "0" : "")\(minuteOfHour) UTC"
    for sum in sums.prefix(Self.unrecordedSourcesPerMinute) {
      logger.warning(
        "\(sum.calls) SIP calls from \(sum.source) ended with no response at all in the minute from \(minute): counted (netquality_calls_silent_unrecorded_total), not recorded one by one",
        metadata: ["source": "\(sum.source)", "calls": "\(sum.calls)"])
    }
    let rest = sums.dropFirst(Self.unrecordedSourcesPerMinute)
    if !rest.isEmpty {
      let calls = rest.reduce(0) { $0 + $1.calls }
      logger.warning(
        "\(calls) more SIP calls from \(rest.count) more sources ended with no response at all in the minute from \(minute), not recorded one by one",
        metadata: ["sources": "\(rest.count)", "calls": "\(calls)"])
    }
  }

  private func log(_ event: EngineEvent) {
    var metadata: Logger.Metadata = ["peer": "\(event.peer)", "event": "\(event.kind.rawValue)"]
    if let reason = event.endReason { metadata["reason"] = "\(reason.rawValue)" }
    if let previous = event.previousState { metadata["from"] = "\(previous.rawValue)" }
    if let alert = event.alert {
      metadata["alert"] = "\(alert.rule)"
      // A page at warning; its end is news, not a problem: info.
      if event.kind == .alertFiring {
        logger.warning("\(alert.summary)", metadata: metadata)
      } else {
        logger.info("resolved: \(alert.summary)", metadata: metadata)
      }
    } else {
      logger.info("peer \(event.peer) \(event.kind.rawValue)", metadata: metadata)
    }
  }

  /// "412 more peers disconnected in this tick: p1, p2, …, p10, … (first 10 names)".
  private func summarise(_ group: Left) {
    var names = group.peers.prefix(Self.namesPerSummary).joined(separator: ", ")
    if group.peers.count > Self.namesPerSummary {
      names += ", … (first \(Self.namesPerSummary) names)"
    }
    var metadata: Logger.Metadata = [
      "event": "\(group.kind.rawValue)", "peers": "\(group.peers.count)",
    ]
    if let rule = group.rule {
      metadata["alert"] = "\(rule)"
      let message: Logger.Message =
        "\(group.peers.count) more \(rule) alerts \(group.kind == .alertFiring ? "firing" : "resolved") in this tick: \(names)"
      if group.kind == .alertFiring {
        logger.warning(message, metadata: metadata)
      } else {
        logger.info(message, metadata: metadata)
      }
    } else {
      let what = group.kind.rawValue.split(separator: "_").joined(separator: " ")
      logger.info(
        "\(group.peers.count) more peers \(what) in this tick: \(names)", metadata: metadata)
    }
  }
}
