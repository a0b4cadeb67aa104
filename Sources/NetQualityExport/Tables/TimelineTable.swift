import NetQualityCore

/// The timeline as an engineer reads it: one line per tick per peer, events in between.
public enum TimelineTable {
  public static let header =
    "TIME                      PEER             STATE         RX          TX          "
    + "MOS  RX LOSS  RX JITTER  TX LOSS  RTT"

  public static func lines(_ result: Engine.TickResult) -> [String] {
    var lines = result.events.map(event)
    let time = result.snapshot.time.rfc3339
    for peer in result.snapshot.peers {
      let mos = peer.meanOpinionScore
      lines.append(
        [
          pad(time, 25), pad(TerminalText.sanitized(peer.peer), 16), pad(peer.state.rawValue, 12),
          pad(peer.rx.level.name, 10), pad(peer.tx.level.name, 10),
          right(mos.map { DecimalText.fixed($0, places: 2) } ?? "-", 4),
          right(percent(peer.rx.inputs?.lossRatio), 7),
          right(DurationText.milliseconds(peer.rx.inputs?.jitterMilliseconds), 9),
          right(percent(peer.tx.inputs?.lossRatio), 7),
          DurationText.milliseconds(peer.roundTripMilliseconds),
        ].joined(separator: " "))
    }
    if result.snapshot.peers.isEmpty { lines.append("\(pad(time, 25)) (no RTP peers)") }
    return lines
  }

  /// One line for a silence whose empty ticks were left out.
  public static func skipped(_ skipped: SkippedTicks) -> String {
    "\(pad(skipped.first.rfc3339, 25)) (no traffic until \(skipped.last.rfc3339): "
      + "\(skipped.count) empty tick(s) not shown)"
  }

  /// An event's line. Peer names (a configured group's name) and alert summaries (which quote
  /// rule and peer names) are printed through `TerminalText`.
  public static func event(_ event: EngineEvent) -> String {
    var text =
      "\(pad(event.time.rfc3339, 25)) \(pad(TerminalText.sanitized(event.peer), 16)) ** "
      + event.kind.rawValue
    if let previous = event.previousState { text += " (was \(previous.rawValue))" }
    if let reason = event.endReason { text += " (\(reason.rawValue))" }
    if let alert = event.alert {
      text += " [\(alert.severity.rawValue)] \(TerminalText.sanitized(alert.summary))"
    }
    return text
  }

  static func percent(_ ratio: Double?) -> String {
    ratio.map { DecimalText.fixed($0 * 100, places: 1) + "%" } ?? "-"
  }

  static func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }

  static func right(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}
