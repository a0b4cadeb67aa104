import NetQualityCore

/// `analyze --calls` as an engineer reads it: one line per call in the order the calls ended,
/// then the counts (docs/calls.md names each column).
public enum CallsTable {
  public static let header =
    "START                     KIND    CALL-ID                          FROM         TO           "
    + "STATUS END          SETUP   PDD     DURATION STREAMS RX PKTS RX LOST TX PKTS MOS"

  /// The calls, or a line saying there were none, and the signalling counts.
  public static func render(_ calls: [CallRecord], signalling: SignallingCounters) -> String {
    var lines = [header]
    for call in calls { lines.append(line(call)) }
    if calls.isEmpty { lines.append("(no calls)") }
    lines.append(summary(calls, signalling: signalling))
    return lines.joined(separator: "\n") + "\n"
  }

  static func line(_ call: CallRecord) -> String {
    let status = call.finalStatus.map(String.init) ?? "-"
    let setup = call.answer.map { seconds($0.seconds(since: call.start)) } ?? "-"
    let mos = call.minMeanOpinionScore.map { DecimalText.fixed($0, places: 2) } ?? "-"
    return [
      pad(call.start.rfc3339, 25), pad(call.kind.rawValue, 7),
      pad(text(call.callID, 32), 32), pad(text(call.fromUser, 12), 12),
      pad(text(call.toUser, 12), 12), pad(status, 6), pad(call.endReason.rawValue, 12),
      right(setup, 6), right(call.postDialDelaySeconds.map(seconds) ?? "-", 7),
      right(seconds(call.durationSeconds), 8), right("\(call.streamCount)", 7),
      right("\(call.rx.packets)", 7), right(call.rx.lost.map { "\($0)" } ?? "-", 7),
      right("\(call.tx.packets)", 7), mos,
    ].joined(separator: " ")
  }

  /// The totals: calls by kind, SIP calls answered and failed, and what was not readable.
  static func summary(_ calls: [CallRecord], signalling: SignallingCounters) -> String {
    let sip = calls.filter { $0.kind == .sip }
    let failed = sip.filter(\.isFailed).count
    var text =
      "\(calls.count) call(s): \(sip.count) sip (\(sip.count - failed) answered, \(failed) failed), "
      + "\(calls.filter { $0.kind == .webrtc }.count) webrtc, "
      + "\(calls.filter { $0.kind == .media }.count) media; "
      + "\(signalling.sipMessages) SIP message(s)"
    if signalling.sipMalformedTotal > 0 {
      text += ", \(signalling.sipMalformedTotal) malformed"
    }
    if signalling.sipTLSSegments > 0 {
      text += ", \(signalling.sipTLSSegments) SIP over TLS segment(s) not readable"
    }
    return text
  }

  static func seconds(_ value: Double) -> String { DecimalText.fixed(value, places: 2) + "s" }

  /// A wire string for a column: control characters made visible, cut to `width` with `~`.
  static func text(_ value: String?, _ width: Int) -> String {
    guard let value else { return "-" }
    let clean = TerminalText.sanitized(value)
    return clean.count <= width ? clean : String(clean.prefix(width - 1)) + "~"
  }

  static func pad(_ text: String, _ width: Int) -> String { TimelineTable.pad(text, width) }
  static func right(_ text: String, _ width: Int) -> String { TimelineTable.right(text, width) }
}
